import { type Program, queryBuilder, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext, WithDead } from '../context.js';
import { boundedError, CLEARED_LEASE, type JobRow, type JobStatus } from '../job.js';
import { retryDelay } from '../retry.js';
import { requireLease } from './lease-guard.js';
import { writeDeadOnSqlite } from './run.js';

export interface FailOptions {
  /** Dead-letter now, whatever attempts remain. */
  readonly permanent?: boolean;
  /** Retry after this delay instead of the configured backoff. */
  readonly retryDelayMs?: number;
}

/**
 * Records a failed attempt: back to pending with `run_at` pushed out by the backoff while attempts
 * remain, otherwise (or when `permanent`) dead, and then the job's owner is told in the same
 * transaction. `LEASE_LOST` (and no change) if the lease is gone. Returns the job's new status.
 */
export function* failProgram(
  ctx: ProgramContext,
  jobId: string,
  token: string,
  error: string,
  options: FailOptions = {},
): Program<WithDead<JobStatus>> {
  const row = yield* requireLease(jobId, token);
  const now = ctx.store.clock.now();
  const dead = options.permanent === true || row.attempts >= row.max_attempts;
  const delay = options.retryDelayMs ?? retryDelay(row.attempts, ctx.config.retryBaseMs, ctx.config.retryMaxMs);
  const change = {
    status: dead ? ('dead' as const) : ('pending' as const),
    error: boundedError(error),
    failed_at: now,
    run_at: dead ? row.run_at : now + Math.max(0, delay),
    updated_at: now,
    ...CLEARED_LEASE,
  };
  yield* run(queryBuilder.updateTable('memory_jobs').set(change).where('id', '=', jobId));
  return { value: change.status, died: dead ? [{ ...row, ...change } satisfies JobRow] : [] };
}

/** {@link failProgram} on SQLite. */
export function fail(
  ctx: QueueContext,
  jobId: string,
  token: string,
  error: string,
  options: FailOptions = {},
): JobStatus {
  return writeDeadOnSqlite(ctx, failProgram(ctx, jobId, token, error, options));
}
