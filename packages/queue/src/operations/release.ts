import type { Program } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { whileLeased } from './lease-guard.js';
import { writeOnSqlite } from './run.js';
import { CLEAR_LEASE, GIVE_ATTEMPT_BACK, same } from './statement.js';

/**
 * Hands a leased job back as pending, eligible now, and gives the lease's attempt back: a graceful
 * shutdown is no failure of the job, however often it interrupts it (the worker releases this way).
 * `attemptConsumed: true` keeps the attempt, for hosts driving the queue by hand that want a
 * handed-back run to count.
 */
export function* releaseProgram(
  ctx: ProgramContext,
  jobId: string,
  token: string,
  options: { attemptConsumed?: boolean } = {},
): Program<void> {
  const now = ctx.store.clock.now();
  const giveBack = options.attemptConsumed === true ? '' : `, ${GIVE_ATTEMPT_BACK}`;
  yield* whileLeased(
    jobId,
    same(
      `UPDATE memory_jobs SET status = 'pending', run_at = ?, updated_at = ?, ${CLEAR_LEASE}${giveBack}
       WHERE id = ? AND status = 'leased' AND lease_token = ? RETURNING id`,
      now,
      now,
      jobId,
      token,
    ),
  );
}

/** {@link releaseProgram} on SQLite. */
export function release(
  ctx: QueueContext,
  jobId: string,
  token: string,
  options: { attemptConsumed?: boolean } = {},
): void {
  writeOnSqlite(ctx, releaseProgram(ctx, jobId, token, options));
}
