import { type Program, queryBuilder, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { CLEARED_LEASE } from '../job.js';
import { requireLease } from './lease-guard.js';
import { writeOnSqlite } from './run.js';
import { GIVE_ATTEMPT_BACK, same } from './statement.js';

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
  yield* requireLease(jobId, token);
  const now = ctx.store.clock.now();
  yield* run(
    queryBuilder
      .updateTable('memory_jobs')
      .set({ status: 'pending', run_at: now, updated_at: now, ...CLEARED_LEASE })
      .where('id', '=', jobId),
  );
  if (options.attemptConsumed !== true)
    yield* run(same(`UPDATE memory_jobs SET ${GIVE_ATTEMPT_BACK} WHERE id = ?`, jobId));
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
