import { contentHash, createTimeSlicer, type MemoryConfig, parseInput, throwIfAborted } from '@memory/core';
import { renderMemoryHead } from '@memory/dreaming';
import type { Queue } from '@memory/queue';
import {
  archiveOrphanEntities,
  bumpLifecycleCount,
  countDuePurges,
  countReapCandidates,
  duePurges,
  emptyPurgeCounts,
  findMaintenanceState,
  findMemoryHeadEntries,
  listMaintenanceState,
  type MaintenanceState,
  mergeFullTextStep,
  type PurgeCounts,
  pruneColdCopies,
  pruneJobArchive,
  purgeMemories,
  reapCandidates,
  reapMemories,
  replaceMemoryHead,
  type SqlExecutor,
  type Store,
  saveMaintenanceState,
} from '@memory/store';
import { z } from 'zod';
import type { PeriodicTask } from './background.js';
import type { EngineContext } from './context.js';
import { previewNoteReaping, reapNotesBatch } from './note-reaping.js';

/** The engine's maintenance job type (reserved): its payload names the task. */
export const MAINTENANCE_JOB = 'maintenance';
/** The maintenance tasks. */
export type MaintenanceTask = 'purge' | 'reap' | 'archive';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
// A purge transaction stops taking memories after this long (each memory's delete touches a dozen
// indexes), so the event loop is never held much longer than this by one commit.
const PURGE_SLICE_MS = 10;
// Pages one full-text merge step writes: a few milliseconds each.
const MERGE_PAGES = 64;

/** What a maintenance run would do now, without doing it (`engine.maintenance.preview()`). */
export interface MaintenancePreview {
  readonly purge: {
    readonly enabled: boolean;
    /** Forgotten or expired at or before this time: due for purge. */
    readonly cutoff: number;
    readonly forgotten: number;
    readonly expired: number;
  };
  readonly reap: {
    readonly enabled: boolean;
    /** Not accessed (nor created) since this time. */
    readonly staleBefore: number;
    readonly maxImportance: number;
    readonly candidates: number;
    /** Working notes: active ones not updated since `staleBefore` are archived by the same task. */
    readonly notes: { readonly afterDays: number; readonly staleBefore: number; readonly candidates: number };
  };
}

/** What one maintenance run did. */
export interface MaintenanceReport {
  readonly task: MaintenanceTask;
  /** Transactions committed. */
  readonly batches: number;
  /** False when the run stopped at its time budget; the next run continues. */
  readonly done: boolean;
  /** Purge: rows per table. */
  readonly purged?: PurgeCounts;
  /** Reap: memories given `expires_at`. */
  readonly reaped?: number;
  /** Reap: stale active notes archived. */
  readonly archivedNotes?: number;
  /** Archive: orphan entities archived, cold copies and archived jobs pruned. */
  readonly archived?: { readonly entities: number; readonly coldCopies: number; readonly jobArchive: number };
}

/** Maintenance as the engine exposes it. */
export interface EngineMaintenance {
  /** What purge and reaping would do now (counts only; nothing changes). */
  preview(): Promise<MaintenancePreview>;
  /**
   * Runs maintenance now, in bounded batches (each its own transaction, the event loop free between
   * them). The same work the scheduled `maintenance` jobs do.
   */
  run(input?: { task?: MaintenanceTask; signal?: AbortSignal; budgetMs?: number }): Promise<MaintenanceReport[]>;
}

const runSchema = z.strictObject({
  task: z.enum(['purge', 'reap', 'archive']).optional(),
  signal: z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
  budgetMs: z.number().int().positive().max(3_600_000).optional(),
});

const payloadSchema = z.looseObject({ task: z.enum(['purge', 'reap', 'archive']) });

function purgeCutoff(config: MemoryConfig, now: number): number {
  return now - config.retention.recoverWindowDays * DAY_MS;
}

function reapRule(config: MemoryConfig, now: number) {
  const { reapAfterDays, reapMaxImportance } = config.lifecycle;
  return { maxImportance: reapMaxImportance, staleBefore: now - reapAfterDays * DAY_MS, afterDays: reapAfterDays };
}

/** The dry run: two index range counts for the purge, one count each for memory and note reaping. */
export function previewMaintenance(ctx: EngineContext): MaintenancePreview {
  const { store, config } = ctx;
  const now = store.clock.now();
  const cutoff = purgeCutoff(config, now);
  const rule = reapRule(config, now);
  const notes = previewNoteReaping(store, config);
  return store.read((sql) => ({
    purge: { enabled: config.retention.purgeEnabled, cutoff, ...countDuePurges(sql, cutoff) },
    reap: {
      enabled: config.lifecycle.reapEnabled,
      staleBefore: rule.staleBefore,
      maxImportance: rule.maxImportance,
      candidates: countReapCandidates(sql, rule),
      notes,
    },
  }));
}

/** Memories due for purge now, in the whole file (two index range counts). */
export function purgeDueCount(ctx: Pick<EngineContext, 'store' | 'config'>): number {
  const cutoff = purgeCutoff(ctx.config, ctx.store.clock.now());
  const due = ctx.store.read((sql) => countDuePurges(sql, cutoff));
  return due.forgotten + due.expired;
}

interface HeadEntry {
  readonly text: string;
  readonly evidence?: ReadonlyArray<{ readonly sourceRef?: unknown }>;
}

/**
 * Rewrites the agent's MEMORY.md head without the entries that quote a purged memory (a new
 * revision by compare-and-swap), so no read shows them. Returns whether it changed.
 */
function dropHeadEntries(sql: SqlExecutor, agentId: string, refs: ReadonlySet<string>, now: number): boolean {
  const head = findMemoryHeadEntries(sql, agentId);
  if (!head) return false;
  let entries: HeadEntry[];
  try {
    entries = JSON.parse(head.entriesJson) as HeadEntry[];
  } catch {
    return false;
  }
  if (!Array.isArray(entries)) return false;
  const kept = entries.filter(
    (e) => !(e.evidence ?? []).some((c) => typeof c.sourceRef === 'string' && refs.has(c.sourceRef)),
  );
  if (kept.length === entries.length) return false;
  const content = renderMemoryHead(kept.map((e) => e.text));
  return (
    replaceMemoryHead(
      sql,
      {
        agentId,
        revision: head.revision + 1,
        content,
        contentHash: contentHash(content),
        entriesJson: JSON.stringify(kept),
        passId: null,
        now,
      },
      { revision: head.revision, contentHash: head.contentHash },
    ) === 1
  );
}

function addCounts(total: PurgeCounts, batch: PurgeCounts): void {
  for (const key of Object.keys(total) as Array<keyof PurgeCounts>) total[key] += batch[key];
}

/** One purge batch in one transaction: the rows, their derived data, heads, counters. */
function purgeBatch(store: Store, config: MemoryConfig): PurgeCounts | undefined {
  return store.write((sql) => {
    const now = store.clock.now();
    const due = duePurges(sql, purgeCutoff(config, now), config.retention.purgeBatchSize);
    if (due.length === 0) return undefined;
    const started = performance.now();
    const { counts, purged } = purgeMemories(
      sql,
      {
        vectorAvailable: store.vector.available,
        nextId: () => store.ids.next(),
        shouldStop: () => performance.now() - started >= PURGE_SLICE_MS,
      },
      due,
      now,
    );
    const perAgent = new Map<string, Set<string>>();
    for (const m of purged) {
      const refs = perAgent.get(m.agentId) ?? new Set<string>();
      refs.add(`memory:${m.id}`);
      perAgent.set(m.agentId, refs);
    }
    for (const [agentId, refs] of perAgent) {
      dropHeadEntries(sql, agentId, refs, now);
      bumpLifecycleCount(sql, agentId, 'purged', refs.size, now);
    }
    return counts;
  });
}

/** One reaping step: a bounded seq range, its matches expired, the cursor saved with them. */
function reapBatch(store: Store, config: MemoryConfig): { reaped: number; wrapped: boolean } {
  return store.write((sql) => {
    const now = store.clock.now();
    const rule = reapRule(config, now);
    const { cursor } = findMaintenanceState(sql, 'reap');
    const { candidates, next } = reapCandidates(sql, { after: cursor, scanRows: config.lifecycle.reapScanRows }, rule);
    const reaped = reapMemories(sql, candidates, rule, now, () => store.ids.next());
    const perAgent = new Map<string, number>();
    for (const c of candidates) perAgent.set(c.agentId, (perAgent.get(c.agentId) ?? 0) + 1);
    for (const [agentId, n] of perAgent) bumpLifecycleCount(sql, agentId, 'reaped', n, now);
    saveMaintenanceState(sql, { task: 'reap', cursor: next, now });
    return { reaped, wrapped: next === 0 };
  });
}

const ARCHIVE_ROWS = 500;

/** One archive step: a range of entities, and a batch each of old cold copies and archived jobs. */
function archiveBatch(
  store: Store,
  config: MemoryConfig,
): { entities: number; cold: number; jobs: number; done: boolean } {
  return store.write((sql) => {
    const now = store.clock.now();
    const { cursor } = findMaintenanceState(sql, 'archive');
    const orphans = archiveOrphanEntities(
      sql,
      { after: cursor, scanRows: ARCHIVE_ROWS },
      now - config.retention.orphanEntityDays * DAY_MS,
      now,
    );
    const cold = pruneColdCopies(sql, now - config.retention.coldCopyDays * DAY_MS, ARCHIVE_ROWS);
    const jobs = pruneJobArchive(sql, now - config.queue.archiveRetentionDays * DAY_MS, ARCHIVE_ROWS);
    saveMaintenanceState(sql, { task: 'archive', cursor: orphans.next, now });
    return {
      entities: orphans.archived,
      cold,
      jobs,
      done: orphans.next === 0 && cold < ARCHIVE_ROWS && jobs < ARCHIVE_ROWS,
    };
  });
}

/**
 * Runs one task in bounded batches until it has nothing left or `budgetMs` is spent; yields to the
 * event loop between batches. Purge asks for a WAL truncation at the end, so the pages that held
 * purged content leave the WAL file too.
 */
export async function runMaintenanceTask(
  ctx: Pick<EngineContext, 'store' | 'config'>,
  task: MaintenanceTask,
  options: { signal?: AbortSignal | undefined; budgetMs?: number | undefined } = {},
): Promise<MaintenanceReport> {
  const { store, config } = ctx;
  const started = performance.now();
  const budget = options.budgetMs ?? 60_000;
  const slicer = createTimeSlicer();
  let batches = 0;
  let done = false;
  const purged = emptyPurgeCounts();
  let reaped = 0;
  let archivedNotes = 0;
  // Reaping walks memories to the end of their seq range, then stale notes (seed 003's note reaping).
  let memoriesReaped = false;
  const archived = { entities: 0, coldCopies: 0, jobArchive: 0 };
  while (!done && performance.now() - started < budget) {
    throwIfAborted(options.signal, `maintenance ${task}`);
    if (task === 'purge') {
      const counts = purgeBatch(store, config);
      if (counts) addCounts(purged, counts);
      done = counts === undefined;
      // Keep the full-text index merged as the purge goes (its own short transaction).
      if (!done) {
        await slicer.yield();
        store.write((sql) => mergeFullTextStep(sql, 'memories_fts', MERGE_PAGES, 'incremental'));
      }
    } else if (task === 'reap' && !memoriesReaped) {
      const step = reapBatch(store, config);
      reaped += step.reaped;
      memoriesReaped = step.wrapped;
    } else if (task === 'reap') {
      const step = reapNotesBatch(store, config);
      archivedNotes += step.archived;
      done = step.done;
    } else {
      const step = archiveBatch(store, config);
      archived.entities += step.entities;
      archived.coldCopies += step.cold;
      archived.jobArchive += step.jobs;
      done = step.done;
    }
    batches++;
    // Every batch is a commit: let the host's event loop run between them.
    if (!done || slicer.due()) await slicer.yield();
  }
  const report: MaintenanceReport =
    task === 'purge'
      ? { task, batches, done, purged }
      : task === 'reap'
        ? { task, batches, done, reaped, archivedNotes }
        : { task, batches, done, archived };
  store.write((sql) =>
    saveMaintenanceState(sql, { task: `${task}:run`, cursor: 0, report: { ...report }, now: store.clock.now() }),
  );
  if (task === 'purge' && purged.memories > 0) await scrubDeletedText(store);
  return report;
}

/**
 * Makes deleted memory text unrecoverable on disk: merges the memory full-text index down to one
 * segment in short steps (the tokens of deleted rows leave it; `secure_delete` zeroes the freed
 * pages), then truncates the WAL so the pages that held them leave it too.
 */
export async function scrubDeletedText(store: Store): Promise<void> {
  const slicer = createTimeSlicer();
  while (store.write((sql) => mergeFullTextStep(sql, 'memories_fts', MERGE_PAGES))) await slicer.yield();
  await store.checkpoint('truncate');
}

/** `engine.maintenance.run`: the given task, or purge then reap. */
export async function runMaintenance(ctx: EngineContext, input: unknown): Promise<MaintenanceReport[]> {
  const { task, signal, budgetMs } = parseInput(runSchema, input ?? {}, 'maintenance.run');
  const tasks: MaintenanceTask[] = task ? [task] : ['purge', 'reap', 'archive'];
  const reports: MaintenanceReport[] = [];
  for (const t of tasks) reports.push(await runMaintenanceTask(ctx, t, { signal, budgetMs }));
  return reports;
}

/** The state of every maintenance task, for diagnostics. */
export function maintenanceStatus(store: Store): MaintenanceState[] {
  return store.read((sql) => listMaintenanceState(sql));
}

/**
 * The periodic checks that queue maintenance jobs: purge when something is due (an index lookup),
 * reaping once per `reapIntervalHours` (by its last finished run). Dedup keys keep one live job each.
 */
export function maintenanceTasks(deps: { store: Store; queue: Queue; config: MemoryConfig }): PeriodicTask[] {
  const { store, queue, config } = deps;
  const tasks: PeriodicTask[] = [];
  if (config.retention.purgeEnabled)
    tasks.push({
      name: 'purge check',
      intervalMs: config.retention.purgeIntervalHours * HOUR_MS,
      run: () => {
        const cutoff = purgeCutoff(config, store.clock.now());
        if (store.read((sql) => duePurges(sql, cutoff, 1).length > 0))
          queue.enqueue({ jobType: MAINTENANCE_JOB, dedupKey: 'maintenance:purge', payload: { task: 'purge' } });
      },
    });
  // Reaping and archiving run once per interval, by their last finished run. The first check only
  // starts the clock: nothing written today is stale yet.
  const everyInterval = (task: 'reap' | 'archive', intervalHours: number): PeriodicTask => ({
    name: `${task} check`,
    intervalMs: Math.min(intervalHours * HOUR_MS, 6 * HOUR_MS),
    run: () => {
      const now = store.clock.now();
      const last = store.read((sql) => findMaintenanceState(sql, `${task}:run`)).lastRunAt;
      if (last === null)
        store.write((sql) => saveMaintenanceState(sql, { task: `${task}:run`, cursor: 0, report: {}, now }));
      else if (now - last >= intervalHours * HOUR_MS)
        queue.enqueue({ jobType: MAINTENANCE_JOB, dedupKey: `maintenance:${task}`, payload: { task } });
    },
  });
  if (config.lifecycle.reapEnabled) tasks.push(everyInterval('reap', config.lifecycle.reapIntervalHours));
  tasks.push(everyInterval('archive', 24));
  return tasks;
}

/** The maintenance job's handler: runs the payload's task within half the job deadline. */
export function maintenanceHandler(ctx: Pick<EngineContext, 'store' | 'config'>) {
  return async (job: { payload: unknown }, context: { signal: AbortSignal }): Promise<MaintenanceReport> => {
    const { task } = parseInput(payloadSchema, job.payload, 'maintenance job');
    return runMaintenanceTask(ctx, task, {
      signal: context.signal,
      budgetMs: Math.min(60_000, ctx.config.queue.jobDeadlineMs / 2),
    });
  };
}
