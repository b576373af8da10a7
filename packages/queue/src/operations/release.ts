import { queryBuilder, raw } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { CLEARED_LEASE } from '../job.js';
import { requireLease } from './lease-guard.js';

/**
 * Hands a leased job back as pending, eligible now, and gives the lease's attempt back: a graceful
 * shutdown is no failure of the job, however often it interrupts it (the worker releases this way).
 * `attemptConsumed: true` keeps the attempt, for hosts driving the queue by hand that want a
 * handed-back run to count.
 */
export function release(
  ctx: QueueContext,
  jobId: string,
  token: string,
  options: { attemptConsumed?: boolean } = {},
): void {
  ctx.store.write((sql) => {
    requireLease(sql, jobId, token);
    const now = ctx.store.clock.now();
    sql.run(
      queryBuilder
        .updateTable('memory_jobs')
        .set({ status: 'pending', run_at: now, updated_at: now, ...CLEARED_LEASE })
        .where('id', '=', jobId)
        .compile(),
    );
    if (options.attemptConsumed !== true) {
      sql.run(raw('UPDATE memory_jobs SET attempts = max(0, attempts - 1) WHERE id = ?', jobId));
    }
  });
}
