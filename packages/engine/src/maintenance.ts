import { createTimeSlicer, type MemoryConfig, parseInput, throwIfAborted } from '@memory/core';
import type { PortableQueue } from '@memory/queue';
import {
  countDuePurgesProgram,
  countReapCandidatesProgram,
  duePurgesProgram,
  emptyPurgeCounts,
  findMaintenanceStateProgram,
  listMaintenanceStateProgram,
  type MaintenanceState,
  type PurgeCounts,
  saveMaintenanceStateProgram,
} from '@memory/store';
import { z } from 'zod';
import type { PeriodicTask } from './background.js';
import type { EngineContext } from './context.js';
import type { ReembedRequest } from './embedding-migration.js';
import { archiveBatch, purgeBatch, purgeCutoff, reapBatch, reapRule } from './maintenance-batches.js';
import { previewNoteReaping, previewNoteReapingOn, reapNotesBatch, reapNotesBatchOn } from './note-reaping.js';

/** The engine's maintenance job type (reserved): its payload names the task. */
export const MAINTENANCE_JOB = 'maintenance';
/** The maintenance tasks. */
export type MaintenanceTask = 'purge' | 'reap' | 'archive';

const HOUR_MS = 3_600_000;

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
  /**
   * Re-embeds a scope's (or, without `agentId`, every scope's) memories that are not on the current
   * embedder: the request is stored and the `embedding_migration` job queued; the started engine
   * (or `runDue`) works through it in batches. Needed with `vectors.reembed: 'manual'`.
   */
  reembed(input?: { agentId?: string }): Promise<ReembedRequest>;
}

const runSchema = z.strictObject({
  task: z.enum(['purge', 'reap', 'archive']).optional(),
  signal: z.instanceof(AbortSignal, { error: 'signal must be an AbortSignal' }).optional(),
  budgetMs: z.number().int().positive().max(3_600_000).optional(),
});

const payloadSchema = z.looseObject({ task: z.enum(['purge', 'reap', 'archive']) });

/** The dry run: two index range counts for the purge, one count each for memory and note reaping. */
export async function previewMaintenance(ctx: EngineContext): Promise<MaintenancePreview> {
  const { store, config } = ctx;
  const now = store.clock.now();
  const cutoff = purgeCutoff(config, now);
  const rule = reapRule(config, now);
  const notes = await notePreview(ctx);
  const counts = await ctx.portable.db.read(function* () {
    return { due: yield* countDuePurgesProgram(cutoff), candidates: yield* countReapCandidatesProgram(rule) };
  });
  return {
    purge: { enabled: config.retention.purgeEnabled, cutoff, ...counts.due },
    reap: {
      enabled: config.lifecycle.reapEnabled,
      staleBefore: rule.staleBefore,
      maxImportance: rule.maxImportance,
      candidates: counts.candidates,
      notes,
    },
  };
}

async function notePreview(ctx: EngineContext): Promise<MaintenancePreview['reap']['notes']> {
  if (ctx.dialect === 'sqlite') return previewNoteReaping(ctx.store, ctx.config);
  return previewNoteReapingOn(ctx.portable, ctx.config);
}

/** Memories due for purge now, in the whole file (two index range counts). */
export async function purgeDueCount(ctx: Pick<EngineContext, 'portable' | 'config'>): Promise<number> {
  const cutoff = purgeCutoff(ctx.config, ctx.portable.clock.now());
  const due = await ctx.portable.db.read(() => countDuePurgesProgram(cutoff));
  return due.forgotten + due.expired;
}

function addCounts(total: PurgeCounts, batch: PurgeCounts): void {
  for (const key of Object.keys(total) as Array<keyof PurgeCounts>) total[key] += batch[key];
}

/** What a maintenance run needs of the engine. */
export type MaintenanceContext = Pick<EngineContext, 'dialect' | 'store' | 'portable' | 'config' | 'vector' | 'writer'>;

/**
 * Runs one task in bounded batches (at least one) until it has nothing left or `budgetMs` is spent;
 * yields to the event loop between batches. Purge asks for a WAL truncation at the end, so the pages that held
 * purged content leave the WAL file too.
 */
export async function runMaintenanceTask(
  ctx: MaintenanceContext,
  task: MaintenanceTask,
  options: { signal?: AbortSignal | undefined; budgetMs?: number | undefined } = {},
): Promise<MaintenanceReport> {
  const { portable } = ctx;
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
  // The budget is checked after each batch, never before the first: a run that was preempted for
  // longer than a small budget before it began would otherwise return having done nothing.
  while (!done && (batches === 0 || performance.now() - started < budget)) {
    throwIfAborted(options.signal, `maintenance ${task}`);
    if (task === 'purge') {
      const counts = await purgeBatch(ctx);
      if (counts) addCounts(purged, counts);
      done = counts === undefined;
    } else if (task === 'reap' && !memoriesReaped) {
      const step = await reapBatch(ctx);
      reaped += step.reaped;
      memoriesReaped = step.wrapped;
    } else if (task === 'reap') {
      const step =
        ctx.dialect === 'sqlite'
          ? reapNotesBatch(ctx.store, ctx.config)
          : await reapNotesBatchOn(ctx.portable, ctx.config);
      archivedNotes += step.archived;
      done = step.done;
    } else {
      const step = await archiveBatch(ctx);
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
  await portable.db.write(() =>
    saveMaintenanceStateProgram({ task: `${task}:run`, cursor: 0, report: { ...report }, now: portable.clock.now() }),
  );
  if (task === 'purge' && purged.memories > 0) await scrubDeletedText(ctx);
  return report;
}

/**
 * Makes deleted memory text unrecoverable on disk. SQLite: `secure_delete` already zeroed the pages
 * that held it in the file (rows, scoped text postings, history), and truncating the WAL removes the
 * copies of those pages it still held. PostgreSQL has no equivalent to run here: deleted rows are
 * gone from every query at commit, and their old tuple versions stay in the data files until
 * (auto)vacuum reuses the space (see docs/postgres.md).
 */
export async function scrubDeletedText(ctx: Pick<EngineContext, 'dialect' | 'store'>): Promise<void> {
  if (ctx.dialect === 'sqlite') await ctx.store.checkpoint('truncate');
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
export function maintenanceStatus(ctx: Pick<EngineContext, 'portable'>): Promise<MaintenanceState[]> {
  return ctx.portable.db.read(() => listMaintenanceStateProgram());
}

/**
 * The periodic checks that queue maintenance jobs: purge when something is due (an index lookup),
 * reaping once per `reapIntervalHours` (by its last finished run). Dedup keys keep one live job each.
 */
export function maintenanceTasks(deps: {
  portable: EngineContext['portable'];
  jobs: PortableQueue;
  config: MemoryConfig;
}): PeriodicTask[] {
  const { portable: store, jobs: queue, config } = deps;
  const tasks: PeriodicTask[] = [];
  if (config.retention.purgeEnabled)
    tasks.push({
      name: 'purge check',
      intervalMs: config.retention.purgeIntervalHours * HOUR_MS,
      run: async () => {
        const cutoff = purgeCutoff(config, store.clock.now());
        if ((await store.db.read(() => duePurgesProgram(cutoff, 1))).length > 0)
          await queue.enqueue({ jobType: MAINTENANCE_JOB, dedupKey: 'maintenance:purge', payload: { task: 'purge' } });
      },
    });
  // Reaping and archiving run once per interval, by their last finished run. The first check only
  // starts the clock: nothing written today is stale yet.
  const everyInterval = (task: 'reap' | 'archive', intervalHours: number): PeriodicTask => ({
    name: `${task} check`,
    intervalMs: Math.min(intervalHours * HOUR_MS, 6 * HOUR_MS),
    run: async () => {
      const now = store.clock.now();
      const last = (await store.db.read(() => findMaintenanceStateProgram(`${task}:run`))).lastRunAt;
      if (last === null)
        await store.db.write(() => saveMaintenanceStateProgram({ task: `${task}:run`, cursor: 0, report: {}, now }));
      else if (now - last >= intervalHours * HOUR_MS)
        await queue.enqueue({ jobType: MAINTENANCE_JOB, dedupKey: `maintenance:${task}`, payload: { task } });
    },
  });
  if (config.lifecycle.reapEnabled) tasks.push(everyInterval('reap', config.lifecycle.reapIntervalHours));
  tasks.push(everyInterval('archive', 24));
  return tasks;
}

/** The maintenance job's handler: runs the payload's task within half the job deadline. */
export function maintenanceHandler(ctx: MaintenanceContext) {
  return async (job: { payload: unknown }, context: { signal: AbortSignal }): Promise<MaintenanceReport> => {
    const { task } = parseInput(payloadSchema, job.payload, 'maintenance job');
    return runMaintenanceTask(ctx, task, {
      signal: context.signal,
      budgetMs: Math.min(60_000, ctx.config.queue.jobDeadlineMs / 2),
    });
  };
}
