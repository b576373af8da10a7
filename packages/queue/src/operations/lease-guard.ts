import { MemoryError } from '@memory/core';
import { get, type Program } from '@memory/store/sql';
import type { JobRow } from '../job.js';
import { dual } from './statement.js';

/**
 * The job, if `token` is still its live lease; otherwise `LEASE_LOST` (reaped, cancelled, or taken by
 * another worker) and the caller changes nothing. PostgreSQL locks the row: a second caller waits
 * for the first to commit and then checks the committed state (READ COMMITTED reads the row's
 * latest version; a SERIALIZABLE caller fails serialization and is re-run from scratch).
 */
export function* requireLease(jobId: string, token: string): Program<JobRow> {
  const row = yield* get<JobRow>(
    dual('SELECT * FROM memory_jobs WHERE id = ?', 'SELECT * FROM memory_jobs WHERE id = ? FOR UPDATE', jobId),
  );
  if (row?.status !== 'leased' || row.lease_token !== token) {
    throw new MemoryError('LEASE_LOST', `the lease on job ${jobId} is no longer held by this worker`, {
      details: { jobId, status: row?.status ?? 'missing' },
    });
  }
  return row;
}
