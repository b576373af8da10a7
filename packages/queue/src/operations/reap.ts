import { raw } from '@memory/store/sql';
import type { QueueContext } from '../context.js';

export interface ReapResult {
  /** Expired leases put back to pending. */
  readonly requeued: number;
  /** Expired leases that were out of attempts, now dead. */
  readonly dead: number;
}

// Lease fields are cleared in the same statement: a reaped job that still carried leased_at or a
// token looked leased to diagnostics and repair (an outage of the reference system).
const CLEAR = 'lease_token = NULL, lease_expires_at = NULL, leased_at = NULL, leased_by = NULL';

/**
 * Expired leases (the worker crashed or hung without heartbeats) go back to pending, or to dead when
 * they have no attempts left: a job that kills its worker every time dies after max attempts.
 */
export function reapExpiredLeases(ctx: QueueContext): ReapResult {
  return ctx.store.write((sql) => {
    const now = ctx.store.clock.now();
    const dead = sql.run(
      raw(
        `UPDATE memory_jobs SET status = 'dead', failed_at = ?, updated_at = ?, error = 'lease expired on the final attempt', ${CLEAR}
         WHERE status = 'leased' AND lease_expires_at <= ? AND attempts >= max_attempts`,
        now,
        now,
        now,
      ),
    ).changes;
    const requeued = sql.run(
      raw(
        `UPDATE memory_jobs SET status = 'pending', run_at = ?, updated_at = ?, error = 'lease expired', ${CLEAR}
         WHERE status = 'leased' AND lease_expires_at <= ?`,
        now,
        now,
        now,
      ),
    ).changes;
    return { requeued, dead };
  });
}

/**
 * Startup recovery: pending jobs already out of attempts can never be leased, and would sit in the
 * backlog forever (another reference-system outage); they are dead-lettered. Returns how many.
 */
export function recoverOnStartup(ctx: QueueContext): number {
  return ctx.store.write((sql) => {
    const now = ctx.store.clock.now();
    return sql.run(
      raw(
        `UPDATE memory_jobs SET status = 'dead', failed_at = ?, updated_at = ?,
           error = coalesce(error, 'found pending with no attempts left at startup'), ${CLEAR}
         WHERE status = 'pending' AND attempts >= max_attempts`,
        now,
        now,
      ),
    ).changes;
  });
}
