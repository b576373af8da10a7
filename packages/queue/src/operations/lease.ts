import type { SqlExecutor } from '@memory/store/sql';
import { raw } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { type Job, type JobRow, toJob } from '../job.js';

// Per job type, the oldest eligible pending job, read from the partial index on
// (job_type, run_at) WHERE status = 'pending': cost does not grow with the backlog. Jobs that are
// somehow pending with no attempts left are skipped here and dead-lettered by startup recovery.
// Ties on run_at go to the earlier insert (rowid), which the index carries as its last key.
export const OLDEST_ELIGIBLE = `
  SELECT id, run_at, rowid AS seq FROM memory_jobs
  WHERE status = 'pending' AND job_type = ? AND run_at <= ? AND attempts < max_attempts
  ORDER BY run_at, rowid
  LIMIT 1`;

const TAKE_LEASE = `
  UPDATE memory_jobs
  SET status = 'leased', lease_token = ?, lease_expires_at = ?, leased_at = ?, leased_by = ?,
      attempts = attempts + 1, updated_at = ?
  WHERE id = ? AND status = 'pending'
  RETURNING *`;

function pickOldest(sql: SqlExecutor, jobTypes: readonly string[], now: number): string | undefined {
  let best: { id: string; run_at: number; seq: number } | undefined;
  for (const jobType of jobTypes) {
    const candidate = sql.get<{ id: string; run_at: number; seq: number }>(raw(OLDEST_ELIGIBLE, jobType, now));
    if (
      candidate &&
      (!best || candidate.run_at < best.run_at || (candidate.run_at === best.run_at && candidate.seq < best.seq))
    ) {
      best = candidate;
    }
  }
  return best?.id;
}

/**
 * Leases the oldest eligible pending job of the given types: status leased, a fresh lease token, a
 * lease expiry, attempts + 1. One immediate transaction, so two processes never lease the same job.
 */
export function lease(ctx: QueueContext, jobTypes: readonly string[], workerId: string): Job | undefined {
  if (jobTypes.length === 0) return undefined;
  return ctx.store.write((sql) => {
    const now = ctx.store.clock.now();
    const id = pickOldest(sql, jobTypes, now);
    if (!id) return undefined;
    const token = ctx.store.ids.next();
    const row = sql.get<JobRow>(raw(TAKE_LEASE, token, now + ctx.config.leaseMs, now, workerId, now, id));
    return row ? toJob(row) : undefined;
  });
}
