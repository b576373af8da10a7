import { MemoryError } from '@memory/core';
import { raw, type SqlExecutor } from '@memory/store/sql';
import type { JobRow } from '../job.js';

/**
 * The job, if `token` is still its live lease; otherwise `LEASE_LOST` (reaped, cancelled, or taken by
 * another worker) and the caller changes nothing.
 */
export function requireLease(sql: SqlExecutor, jobId: string, token: string): JobRow {
  const row = sql.get<JobRow>(raw('SELECT * FROM memory_jobs WHERE id = ?', jobId));
  if (row?.status !== 'leased' || row.lease_token !== token) {
    throw new MemoryError('LEASE_LOST', `the lease on job ${jobId} is no longer held by this worker`, {
      details: { jobId, status: row?.status ?? 'missing' },
    });
  }
  return row;
}
