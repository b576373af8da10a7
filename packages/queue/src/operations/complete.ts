import { MemoryError } from '@memory/core';
import { queryBuilder } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { CLEARED_LEASE } from '../job.js';
import { requireLease } from './lease-guard.js';

/** Marks a leased job completed with its result. `LEASE_LOST` (and no change) if the lease is gone. */
export function complete(ctx: QueueContext, jobId: string, token: string, result?: unknown): void {
  let text: string | null;
  try {
    text = result === undefined ? null : (JSON.stringify(result) ?? null);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', 'job result must be JSON-serializable', { cause: error });
  }
  ctx.store.write((sql) => {
    requireLease(sql, jobId, token);
    const now = ctx.store.clock.now();
    sql.run(
      queryBuilder
        .updateTable('memory_jobs')
        .set({ status: 'completed', result: text, completed_at: now, updated_at: now, error: null, ...CLEARED_LEASE })
        .where('id', '=', jobId)
        .compile(),
    );
  });
}
