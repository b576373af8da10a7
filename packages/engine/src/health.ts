import { agentIdSchema, parseInput } from '@memory/core';
import { memoryHealthCountsProgram } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { MAINTENANCE_JOB } from './maintenance.js';

const DAY_MS = 86_400_000;

/** One scope's memory health. */
export interface MemoryHealth {
  readonly agentId: string;
  /** Memories not forgotten (expired ones included until purged: see `expiring`). */
  readonly live: number;
  /** Forgotten, still recoverable within `retention.recoverWindowDays`. */
  readonly forgotten: number;
  /** Live memories with an expiry (reaped ones included). */
  readonly expiring: number;
  /** Purged so far (their tombstones). */
  readonly purged: number;
  /** The last 30 days. */
  readonly last30Days: {
    readonly duplicatesPrevented: number;
    readonly conflictsMerged: number;
    readonly reaped: number;
  };
  /** Live memories no recall has returned yet. */
  readonly neverRecalled: number;
  /** Live memories not accessed (nor created) in `lifecycle.reapAfterDays`. */
  readonly stale: number;
  /** Active entities no mention, claim or link points at (counted up to 10,000). */
  readonly orphanEntities: number;
  /**
   * With an embedder: live memories by the vector they have. `otherModel`: still on an earlier
   * embedder (model or dimensions) and not yet re-embedded; with `missing`, what recall's semantic
   * channel cannot find yet (see `vectorCompleteness: 'partial'`).
   */
  readonly vectors?: {
    readonly model: string;
    readonly current: number;
    readonly missing: number;
    readonly otherModel: number;
  };
  readonly pendingMaintenance: {
    /** The scope's memories the next purge removes. */
    readonly purgeDue: number;
    /** Maintenance jobs queued or running (for the whole file). */
    readonly jobs: number;
  };
}

const healthSchema = z.strictObject({ agentId: agentIdSchema });

/**
 * A scope's health from maintained counts and bounded index range counts (see `memoryHealthCounts`
 * in the store): cheap enough to call per request. Its cost follows the scope's embedding models,
 * its days with activity and the purge backlog, not its memories (`npm run bench:health`).
 */
export async function memoryHealth(ctx: EngineContext, input: unknown): Promise<MemoryHealth> {
  const { agentId } = parseInput(healthSchema, input, 'health');
  const { portable: store, config } = ctx;
  const now = store.clock.now();
  const counts = await store.db.read(() =>
    memoryHealthCountsProgram(agentId, {
      now,
      staleBefore: now - config.lifecycle.reapAfterDays * DAY_MS,
      countersSince: now - 30 * DAY_MS,
      purgeCutoff: now - config.retention.recoverWindowDays * DAY_MS,
    }),
  );
  const described = ctx.providers.embedder;
  const jobs = (await ctx.jobs.health())
    .filter((h) => h.jobType === MAINTENANCE_JOB)
    .reduce((sum, h) => sum + h.pending + h.leased, 0);
  return {
    agentId,
    live: counts.live,
    forgotten: counts.forgotten,
    expiring: counts.expiring,
    purged: counts.purged,
    last30Days: {
      duplicatesPrevented: counts.duplicatesPrevented,
      conflictsMerged: counts.conflictsMerged,
      reaped: counts.reaped,
    },
    neverRecalled: counts.neverRecalled,
    stale: counts.stale,
    orphanEntities: counts.orphanEntities,
    ...(described === undefined
      ? {}
      : {
          vectors: {
            model: described.model,
            current: counts.byModel.find((m) => m.model === described.vectorKey)?.count ?? 0,
            missing: counts.byModel.find((m) => m.model === null)?.count ?? 0,
            otherModel: counts.byModel
              .filter((m) => m.model !== null && m.model !== described.vectorKey)
              .reduce((s, m) => s + m.count, 0),
          },
        }),
    pendingMaintenance: { purgeDue: counts.purgeDue, jobs },
  };
}
