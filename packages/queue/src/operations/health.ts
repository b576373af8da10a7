import { all, get, type Program } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { readOnSqlite } from './run.js';
import { same } from './statement.js';

/** Per-type queue health. Each type is reported on its own, so one stuck type never hides another. */
export interface JobTypeHealth {
  readonly jobType: string;
  readonly pending: number;
  /** Pending and eligible now (run_at has passed). */
  readonly due: number;
  readonly leased: number;
  readonly completed: number;
  readonly dead: number;
  readonly cancelled: number;
  /** Age of the oldest due pending job, or null. */
  readonly oldestPendingAgeMs: number | null;
  /** The newest recorded error for this type, or null. */
  readonly lastError: string | null;
  readonly lastErrorAt: number | null;
}

/** Health for every job type present in the queue, sorted by type. */
export function* healthProgram(ctx: ProgramContext): Program<JobTypeHealth[]> {
  const now = ctx.store.clock.now();
  const counts = yield* all<{ job_type: string; status: string; n: number }>(
    same('SELECT job_type, status, count(*) AS n FROM memory_jobs GROUP BY job_type, status'),
  );
  const types = [...new Set(counts.map((c) => c.job_type))].sort();
  const report: JobTypeHealth[] = [];
  for (const jobType of types) {
    const count = (status: string) => counts.find((c) => c.job_type === jobType && c.status === status)?.n ?? 0;
    const due = yield* get<{ n: number; oldest: number | null }>(
      same(
        "SELECT count(*) AS n, min(run_at) AS oldest FROM memory_jobs WHERE status = 'pending' AND job_type = ? AND run_at <= ?",
        jobType,
        now,
      ),
    );
    const last = yield* get<{ error: string; at: number }>(
      same(
        'SELECT error, coalesce(failed_at, updated_at) AS at FROM memory_jobs WHERE job_type = ? AND error IS NOT NULL ORDER BY coalesce(failed_at, updated_at) DESC LIMIT 1',
        jobType,
      ),
    );
    report.push({
      jobType,
      pending: count('pending'),
      due: due?.n ?? 0,
      leased: count('leased'),
      completed: count('completed'),
      dead: count('dead'),
      cancelled: count('cancelled'),
      oldestPendingAgeMs: due?.oldest === null || due?.oldest === undefined ? null : now - due.oldest,
      lastError: last?.error ?? null,
      lastErrorAt: last?.at ?? null,
    });
  }
  return report;
}

/** {@link healthProgram} on SQLite. */
export function health(ctx: QueueContext): JobTypeHealth[] {
  return readOnSqlite(ctx, healthProgram(ctx));
}
