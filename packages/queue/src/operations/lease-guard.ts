import { MemoryError } from '@memory/core';
import { get, type PortableQuery, type Program } from '@memory/store/sql';
import type { JobRow } from '../job.js';
import { dual, same } from './statement.js';

function leaseLost(jobId: string, status: string | undefined): MemoryError {
  return new MemoryError('LEASE_LOST', `the lease on job ${jobId} is no longer held by this worker`, {
    details: { jobId, status: status ?? 'missing' },
  });
}

/**
 * The job, if `token` is still its live lease; otherwise `LEASE_LOST` (reaped, cancelled, or taken by
 * another worker) and the caller changes nothing. PostgreSQL locks the row: a second caller waits
 * for the first to commit and then checks the committed state (a SERIALIZABLE caller fails
 * serialization and is re-run from scratch).
 */
export function* requireLease(jobId: string, token: string): Program<JobRow> {
  const row = yield* get<JobRow>(
    dual('SELECT * FROM memory_jobs WHERE id = ?', 'SELECT * FROM memory_jobs WHERE id = ? FOR UPDATE', jobId),
  );
  if (row?.status !== 'leased' || row.lease_token !== token) throw leaseLost(jobId, row?.status);
  return row;
}

/**
 * Runs `update`, an UPDATE of the job guarded by `status = 'leased' AND lease_token = <token>` and
 * returning its id, in one statement; `LEASE_LOST` (and no change) when it matched nothing. On
 * PostgreSQL (READ COMMITTED) an UPDATE that waited for another holder's commit re-checks the guard
 * against the committed row.
 */
export function* whileLeased(jobId: string, update: PortableQuery<{ id: string }>): Program<void> {
  if (yield* get<{ id: string }>(update)) return;
  const now = yield* get<{ status: string }>(same('SELECT status FROM memory_jobs WHERE id = ?', jobId));
  throw leaseLost(jobId, now?.status);
}
