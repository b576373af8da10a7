import { get, type Program } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { type Job, type JobRow, toJob } from '../job.js';
import { writeOnSqlite } from './run.js';
import { dual, same } from './statement.js';

// Per job type, the oldest eligible pending job, read from the partial index on
// (job_type, run_at) WHERE status = 'pending': cost does not grow with the backlog. Jobs that are
// somehow pending with no attempts left are skipped here and dead-lettered by startup recovery.
// Ties on run_at go to the earlier insert (rowid), which the index carries as its last key
// (PostgreSQL has an explicit identity column `rowid` for it, also the index's last key).
export const OLDEST_ELIGIBLE = `
  SELECT id, run_at, rowid AS seq FROM memory_jobs
  WHERE status = 'pending' AND job_type = ? AND run_at <= ? AND attempts < max_attempts
  ORDER BY run_at, rowid
  LIMIT 1`;

// On PostgreSQL several processes lease at once: the candidate row is locked, and rows another
// leaser holds are skipped rather than waited for. (The lease runs READ COMMITTED, so a row leased
// and committed since the statement began is re-checked against the WHERE clause and passed over.)
const OLDEST_ELIGIBLE_LOCKED = `${OLDEST_ELIGIBLE} FOR UPDATE SKIP LOCKED`;

const TAKE_LEASE = `
  UPDATE memory_jobs
  SET status = 'leased', lease_token = ?, lease_expires_at = ?, leased_at = ?, leased_by = ?,
      attempts = attempts + 1, updated_at = ?
  WHERE id = ? AND status = 'pending'
  RETURNING *`;

type Candidate = { id: string; run_at: number; seq: number };

function* pickOldest(jobTypes: readonly string[], now: number): Program<string | undefined> {
  let best: Candidate | undefined;
  for (const jobType of jobTypes) {
    // With several types, the head of each is locked until the lease commits (milliseconds); a
    // concurrent leaser passes over those and takes the next job.
    const candidate = yield* get<Candidate>(dual(OLDEST_ELIGIBLE, OLDEST_ELIGIBLE_LOCKED, jobType, now));
    if (
      candidate &&
      (!best || candidate.run_at < best.run_at || (candidate.run_at === best.run_at && candidate.seq < best.seq))
    ) {
      best = candidate;
    }
  }
  return best?.id;
}

/**
 * Leases the oldest eligible pending job of the given types: status leased, a fresh lease token, a
 * lease expiry, attempts + 1. One transaction, so two processes never lease the same job: SQLite
 * has one writer; PostgreSQL locks the row (`FOR UPDATE SKIP LOCKED`).
 */
export function* leaseProgram(
  ctx: ProgramContext,
  jobTypes: readonly string[],
  workerId: string,
): Program<Job | undefined> {
  if (jobTypes.length === 0) return undefined;
  const now = ctx.store.clock.now();
  const id = yield* pickOldest(jobTypes, now);
  if (!id) return undefined;
  const token = ctx.store.ids.next();
  const row = yield* get<JobRow>(same(TAKE_LEASE, token, now + ctx.config.leaseMs, now, workerId, now, id));
  return row ? toJob(row) : undefined;
}

/** {@link leaseProgram} on SQLite. */
export function lease(ctx: QueueContext, jobTypes: readonly string[], workerId: string): Job | undefined {
  if (jobTypes.length === 0) return undefined;
  return writeOnSqlite(ctx, leaseProgram(ctx, jobTypes, workerId));
}
