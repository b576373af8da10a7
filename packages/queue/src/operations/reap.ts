import { all, type Program, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext, WithDead } from '../context.js';
import type { JobRow } from '../job.js';
import { writeDeadOnSqlite } from './run.js';
import { CLEAR_LEASE, GIVE_ATTEMPT_BACK, same } from './statement.js';

export interface ReapResult {
  /** Expired leases put back to pending. */
  readonly requeued: number;
  /** Expired leases of jobs past their interruption limit, now dead. */
  readonly dead: number;
}

// Lease fields are cleared in the same statement: a reaped job that still carried leased_at or a
// token looked leased to diagnostics and repair (an outage of the reference system).
// An expired lease is an interruption, not a failure of the handler: the run gives its attempt
// back (the lease took it) and counts one interruption instead.
const INTERRUPTED = `${GIVE_ATTEMPT_BACK}, interruptions = interruptions + 1`;
const EXPIRED = "status = 'leased' AND lease_expires_at <= ?";

/**
 * Expired leases (the worker's process died, or hung without heartbeats) go back to pending, eligible
 * now. A job that kills its process every time dies after `max_interruptions` interruptions; a
 * resumable job (no limit) never dies of interruptions. Dead jobs' owners are told in the same
 * transaction.
 */
export function* reapProgram(ctx: ProgramContext): Program<WithDead<ReapResult>> {
  const now = ctx.store.clock.now();
  const died = yield* all<JobRow>(
    same(
      `UPDATE memory_jobs SET status = 'dead', failed_at = ?, updated_at = ?, ${INTERRUPTED},
         error = 'interrupted ' || (interruptions + 1) || ' times: its lease expired each time (the process running it died or hung)',
         ${CLEAR_LEASE}
       WHERE ${EXPIRED} AND max_interruptions IS NOT NULL AND interruptions + 1 >= max_interruptions
       RETURNING *`,
      now,
      now,
      now,
    ),
  );
  const requeued = (yield* run(
    same(
      `UPDATE memory_jobs SET status = 'pending', run_at = ?, updated_at = ?, ${INTERRUPTED}, error = 'lease expired', ${CLEAR_LEASE}
       WHERE ${EXPIRED}`,
      now,
      now,
      now,
    ),
  )).changes;
  return { value: { requeued, dead: died.length }, died };
}

/** {@link reapProgram} on SQLite. */
export function reapExpiredLeases(ctx: QueueContext): ReapResult {
  return writeDeadOnSqlite(ctx, reapProgram(ctx));
}

/**
 * Startup recovery: pending jobs already out of attempts can never be leased, and would sit in the
 * backlog forever (another reference-system outage); they are dead-lettered, and their owners told.
 * Returns how many.
 */
export function* recoverProgram(ctx: ProgramContext): Program<WithDead<number>> {
  const now = ctx.store.clock.now();
  const died = yield* all<JobRow>(
    same(
      `UPDATE memory_jobs SET status = 'dead', failed_at = ?, updated_at = ?,
         error = coalesce(error, 'found pending with no attempts left at startup'), ${CLEAR_LEASE}
       WHERE status = 'pending' AND attempts >= max_attempts
       RETURNING *`,
      now,
      now,
    ),
  );
  return { value: died.length, died };
}

/** {@link recoverProgram} on SQLite. */
export function recoverOnStartup(ctx: QueueContext): number {
  return writeDeadOnSqlite(ctx, recoverProgram(ctx));
}
