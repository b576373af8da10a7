import { yieldToEventLoop } from '@memory/core';
import { all, get, type Program, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { readOnSqlite, writeOnSqlite } from './run.js';
import { dual, IN_IDS, same } from './statement.js';

export interface PruneOptions {
  /** Delete (after archiving); without it, only count. @default false */
  readonly apply?: boolean;
  /** @default config.queue.completedRetentionDays (completed and cancelled jobs) */
  readonly completedOlderThanDays?: number;
  /** @default config.queue.deadRetentionDays */
  readonly deadOlderThanDays?: number;
}

export interface PruneReport {
  readonly applied: boolean;
  /** Completed or cancelled jobs past retention (pruned when applied). */
  readonly completed: number;
  /** Dead jobs past retention (pruned when applied). */
  readonly dead: number;
}

const DAY = 86_400_000;
const EXPIRED = `(status IN ('completed', 'cancelled') AND completed_at <= ?) OR (status = 'dead' AND failed_at <= ?)`;
const FIELDS = [
  'id',
  'job_type',
  'status',
  'dedup_key',
  'payload',
  'result',
  'attempts',
  'max_attempts',
  'interruptions',
  'max_interruptions',
  'run_at',
  'completed_at',
  'failed_at',
  'error',
  'memory_id',
  'document_id',
  'agent_id',
  'created_at',
  'updated_at',
];
const ROW_JSON = FIELDS.map((f) => `'${f}', j.${f}`).join(', ');

/** The retention cutoffs for a prune run, from the options or the config. */
export function pruneCutoffs(ctx: ProgramContext, options: PruneOptions): { completed: number; dead: number } {
  const now = ctx.store.clock.now();
  return {
    completed: now - (options.completedOlderThanDays ?? ctx.config.completedRetentionDays) * DAY,
    dead: now - (options.deadOlderThanDays ?? ctx.config.deadRetentionDays) * DAY,
  };
}

/** How many terminal jobs are past retention. */
export function* pruneCountProgram(cutoffs: {
  completed: number;
  dead: number;
}): Program<{ completed: number; dead: number }> {
  const row = yield* get<{ completed: number; dead: number }>(
    same(
      `SELECT coalesce(sum(CASE WHEN status IN ('completed', 'cancelled') THEN 1 ELSE 0 END), 0) AS completed,
              coalesce(sum(CASE WHEN status = 'dead' THEN 1 ELSE 0 END), 0) AS dead
       FROM memory_jobs WHERE ${EXPIRED}`,
      cutoffs.completed,
      cutoffs.dead,
    ),
  );
  return row ?? { completed: 0, dead: 0 };
}

/** Archives and deletes one batch of terminal jobs past retention; returns how many it removed. */
export function* pruneBatchProgram(ctx: ProgramContext, cutoffs: { completed: number; dead: number }): Program<number> {
  const now = ctx.store.clock.now();
  const ids = yield* all<{ id: string }>(
    same(
      `SELECT id FROM memory_jobs WHERE ${EXPIRED} LIMIT ?`,
      cutoffs.completed,
      cutoffs.dead,
      ctx.config.pruneBatchSize,
    ),
  );
  const batch = JSON.stringify(ids.map((r) => r.id));
  // SQLite replaces an archived row of the same id; PostgreSQL does the same with an upsert.
  const select = 'SELECT j.id, j.job_type, j.status,';
  const from = 'FROM memory_jobs AS j WHERE j.';
  yield* run(
    dual(
      `INSERT OR REPLACE INTO memory_jobs_archive (id, job_type, status, row_json, archived_at)
       ${select} json_object(${ROW_JSON}), ? ${from}${IN_IDS.sqlite}`,
      `INSERT INTO memory_jobs_archive (id, job_type, status, row_json, archived_at)
       ${select} json_build_object(${ROW_JSON})::text, ? ${from}${IN_IDS.postgres}
       ON CONFLICT (id) DO UPDATE SET job_type = excluded.job_type, status = excluded.status,
         row_json = excluded.row_json, archived_at = excluded.archived_at`,
      now,
      batch,
    ),
  );
  return (yield* run(
    dual(`DELETE FROM memory_jobs WHERE ${IN_IDS.sqlite}`, `DELETE FROM memory_jobs WHERE ${IN_IDS.postgres}`, batch),
  )).changes;
}

/**
 * Removes terminal jobs past retention, archiving each row to `memory_jobs_archive` first, in
 * transactions of `pruneBatchSize` rows. Dry-run (counts only) unless `apply`.
 */
export async function prune(ctx: QueueContext, options: PruneOptions = {}): Promise<PruneReport> {
  const cutoffs = pruneCutoffs(ctx, options);
  const counts = readOnSqlite(ctx, pruneCountProgram(cutoffs));
  if (options.apply !== true) return { applied: false, ...counts };
  for (;;) {
    const removed = writeOnSqlite(ctx, pruneBatchProgram(ctx, cutoffs));
    if (removed < ctx.config.pruneBatchSize) break;
    // Between batches, let the host's event loop run.
    await yieldToEventLoop();
  }
  return { applied: true, ...counts };
}
