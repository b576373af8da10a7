import { contentHash, type MemoryConfig } from '@memory/core';
import { renderMemoryHead } from '@memory/dreaming';
import {
  archiveOrphanEntitiesProgram,
  bumpLifecycleCountProgram,
  duePurgesProgram,
  findMaintenanceStateProgram,
  findMemoryHeadEntriesProgram,
  type Program,
  type PurgeCandidate,
  type PurgeCounts,
  presentTablesProgram,
  pruneColdCopiesProgram,
  pruneJobArchiveProgram,
  purgeMemoriesProgram,
  reapCandidatesProgram,
  reapMemoriesProgram,
  replaceMemoryHeadProgram,
  runWriterProgram,
  saveMaintenanceStateProgram,
} from '@memory/store';
import type { EngineContext } from './context.js';

// The maintenance tasks' transactions, each one program on either dialect.

const DAY_MS = 86_400_000;
// A purge transaction stops taking memories after this long. On SQLite the transaction holds the
// event loop (each memory's delete touches a dozen indexes), so it stays short; on PostgreSQL it
// holds only row locks and a snapshot, and each statement is a round trip, so it may run longer.
const PURGE_SLICE_MS = { sqlite: 10, postgres: 250 } as const;
const ARCHIVE_ROWS = 500;

type Ctx = Pick<EngineContext, 'dialect' | 'store' | 'portable' | 'config' | 'vector' | 'writer'>;

/** Forgotten or expired at or before this time: due for purge. */
export function purgeCutoff(config: MemoryConfig, now: number): number {
  return now - config.retention.recoverWindowDays * DAY_MS;
}

/** The reaping rule at `now`. */
export function reapRule(config: MemoryConfig, now: number) {
  const { reapAfterDays, reapMaxImportance } = config.lifecycle;
  return { maxImportance: reapMaxImportance, staleBefore: now - reapAfterDays * DAY_MS, afterDays: reapAfterDays };
}

interface HeadEntry {
  readonly text: string;
  readonly evidence?: ReadonlyArray<{ readonly sourceRef?: unknown }>;
}

/**
 * Rewrites the agent's MEMORY.md head without the entries that quote a purged memory (a new
 * revision by compare-and-swap), so no read shows them. Returns whether it changed.
 */
function* dropHeadEntries(agentId: string, refs: ReadonlySet<string>, now: number): Program<boolean> {
  const head = yield* findMemoryHeadEntriesProgram(agentId);
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
  const changed = yield* replaceMemoryHeadProgram(
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
  );
  return changed === 1;
}

/** One purge batch in one transaction: the rows, their derived data, heads, counters. */
export async function purgeBatch(ctx: Ctx): Promise<PurgeCounts | undefined> {
  const { store, config } = ctx;
  let removed: readonly PurgeCandidate[] = [];
  const slice = PURGE_SLICE_MS[ctx.dialect];
  // No scope lock keys: the scopes are found inside the transaction, and a purge only deletes (no
  // memory or history row is added, so conflict detection's history marks cannot miss one).
  const counts = await runWriterProgram(ctx.portable, { agentIds: [] }, function* (target) {
    const now = store.clock.now();
    const due = yield* duePurgesProgram(purgeCutoff(config, now), config.retention.purgeBatchSize);
    if (due.length === 0) return undefined;
    const started = performance.now();
    const { counts, purged } = yield* purgeMemoriesProgram(
      target,
      {
        vectorAvailable: ctx.dialect === 'sqlite' && ctx.vector.available,
        nextId: () => store.ids.next(),
        shouldStop: () => performance.now() - started >= slice,
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
    // On PostgreSQL the head's table exists once Dreaming's form has landed.
    const heads = (yield* presentTablesProgram(['memory_md_heads'])).has('memory_md_heads');
    for (const [agentId, refs] of perAgent) {
      if (heads) yield* dropHeadEntries(agentId, refs, now);
      yield* bumpLifecycleCountProgram(agentId, 'purged', refs.size, now);
    }
    removed = purged;
    return counts;
  });
  // Committed: a row inserted from now on may take a purged seq (see `ConflictKeyIndex.purged`).
  ctx.writer.conflictKeys?.purged(removed);
  return counts;
}

/** One reaping step: a bounded seq range, its matches expired, the cursor saved with them. */
export function reapBatch(ctx: Ctx): Promise<{ reaped: number; wrapped: boolean }> {
  const { store, config } = ctx;
  return ctx.portable.db.write(function* () {
    const now = store.clock.now();
    const rule = reapRule(config, now);
    const { cursor } = yield* findMaintenanceStateProgram('reap');
    const { candidates, next } = yield* reapCandidatesProgram(
      { after: cursor, scanRows: config.lifecycle.reapScanRows },
      rule,
    );
    const reaped = yield* reapMemoriesProgram(candidates, rule, now, () => store.ids.next());
    const perAgent = new Map<string, number>();
    for (const c of candidates) perAgent.set(c.agentId, (perAgent.get(c.agentId) ?? 0) + 1);
    for (const [agentId, n] of perAgent) yield* bumpLifecycleCountProgram(agentId, 'reaped', n, now);
    yield* saveMaintenanceStateProgram({ task: 'reap', cursor: next, now });
    return { reaped, wrapped: next === 0 };
  });
}

/** One archive step: a range of entities, and a batch each of old cold copies and archived jobs. */
export function archiveBatch(ctx: Ctx): Promise<{ entities: number; cold: number; jobs: number; done: boolean }> {
  const { store, config } = ctx;
  return ctx.portable.db.write(function* () {
    const now = store.clock.now();
    const { cursor } = yield* findMaintenanceStateProgram('archive');
    const orphans = yield* archiveOrphanEntitiesProgram(
      { after: cursor, scanRows: ARCHIVE_ROWS },
      now - config.retention.orphanEntityDays * DAY_MS,
      now,
    );
    const cold = yield* pruneColdCopiesProgram(now - config.retention.coldCopyDays * DAY_MS, ARCHIVE_ROWS);
    const jobs = yield* pruneJobArchiveProgram(now - config.queue.archiveRetentionDays * DAY_MS, ARCHIVE_ROWS);
    yield* saveMaintenanceStateProgram({ task: 'archive', cursor: orphans.next, now });
    return {
      entities: orphans.archived,
      cold,
      jobs,
      done: orphans.next === 0 && cold < ARCHIVE_ROWS && jobs < ARCHIVE_ROWS,
    };
  });
}
