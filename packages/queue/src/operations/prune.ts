import { yieldToEventLoop } from '@memory/core';
import { raw } from '@memory/store/sql';
import type { QueueContext } from '../context.js';

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

/**
 * Removes terminal jobs past retention, archiving each row to `memory_jobs_archive` first, in
 * transactions of `pruneBatchSize` rows. Dry-run (counts only) unless `apply`.
 */
export async function prune(ctx: QueueContext, options: PruneOptions = {}): Promise<PruneReport> {
  const now = ctx.store.clock.now();
  const completedCutoff = now - (options.completedOlderThanDays ?? ctx.config.completedRetentionDays) * DAY;
  const deadCutoff = now - (options.deadOlderThanDays ?? ctx.config.deadRetentionDays) * DAY;
  const counts = ctx.store.read((sql) =>
    sql.get<{ completed: number; dead: number }>(
      raw(
        `SELECT coalesce(sum(status IN ('completed', 'cancelled')), 0) AS completed, coalesce(sum(status = 'dead'), 0) AS dead
         FROM memory_jobs WHERE ${EXPIRED}`,
        completedCutoff,
        deadCutoff,
      ),
    ),
  ) ?? { completed: 0, dead: 0 };
  if (options.apply !== true) return { applied: false, ...counts };
  for (;;) {
    const removed = ctx.store.write((sql) => {
      const batch = JSON.stringify(
        sql
          .all<{ id: string }>(
            raw(
              `SELECT id FROM memory_jobs WHERE ${EXPIRED} LIMIT ?`,
              completedCutoff,
              deadCutoff,
              ctx.config.pruneBatchSize,
            ),
          )
          .map((r) => r.id),
      );
      sql.run(
        raw(
          `INSERT OR REPLACE INTO memory_jobs_archive (id, job_type, status, row_json, archived_at)
           SELECT j.id, j.job_type, j.status, json_object(
             'id', j.id, 'job_type', j.job_type, 'status', j.status, 'dedup_key', j.dedup_key, 'payload', j.payload,
             'result', j.result, 'attempts', j.attempts, 'max_attempts', j.max_attempts, 'interruptions', j.interruptions,
             'max_interruptions', j.max_interruptions, 'run_at', j.run_at,
             'completed_at', j.completed_at, 'failed_at', j.failed_at, 'error', j.error, 'memory_id', j.memory_id,
             'document_id', j.document_id, 'agent_id', j.agent_id, 'created_at', j.created_at, 'updated_at', j.updated_at), ?
           FROM memory_jobs AS j WHERE j.id IN (SELECT value FROM json_each(?))`,
          now,
          batch,
        ),
      );
      return sql.run(raw('DELETE FROM memory_jobs WHERE id IN (SELECT value FROM json_each(?))', batch)).changes;
    });
    if (removed < ctx.config.pruneBatchSize) break;
    // Between batches, let the host's event loop run.
    await yieldToEventLoop();
  }
  return { applied: true, ...counts };
}
