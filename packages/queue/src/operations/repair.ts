import { raw, type SqlExecutor } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import type { JobRow, JobStatus } from '../job.js';
import { notifyDead } from './dead-letter.js';

/** What a repair did, or (dry run) would do. */
export interface RepairReport {
  readonly operation: 'requeueDead' | 'releaseStale' | 'cancel';
  /** False for a dry run: nothing was changed. */
  readonly applied: boolean;
  /** Jobs matched in this call (at most `limit`). */
  readonly matched: number;
  /** Matching jobs left beyond `limit`; call again to continue. */
  readonly remaining: number;
  /** The matched jobs (id, type and status before the repair). */
  readonly jobs: ReadonlyArray<{ readonly id: string; readonly jobType: string; readonly status: JobStatus }>;
}

export interface RepairFilter {
  /** Only these job types. */
  readonly jobType?: string;
  /** Only these job ids. */
  readonly ids?: readonly string[];
  /** Only jobs for this document. */
  readonly documentId?: string;
  /** Change things; without it the repair only reports. @default false */
  readonly apply?: boolean;
  /** Jobs per call (one transaction). @default config.queue.pruneBatchSize */
  readonly limit?: number;
}

interface Selection {
  readonly where: string;
  readonly params: readonly unknown[];
}

function select(sql: SqlExecutor, selection: Selection, filter: RepairFilter, limit: number) {
  const where = `${selection.where}
    AND (? IS NULL OR job_type = ?)
    AND (? IS NULL OR id IN (SELECT value FROM json_each(?)))
    AND (? IS NULL OR document_id = ?)`;
  const ids = filter.ids ? JSON.stringify(filter.ids) : null;
  const doc = filter.documentId ?? null;
  const params = [...selection.params, filter.jobType ?? null, filter.jobType ?? null, ids, ids, doc, doc];
  const jobs = sql.all<{ id: string; jobType: string; status: JobStatus }>(
    raw(
      `SELECT id, job_type AS jobType, status FROM memory_jobs WHERE ${where} ORDER BY created_at, id LIMIT ?`,
      ...params,
      limit,
    ),
  );
  const total = sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM memory_jobs WHERE ${where}`, ...params))?.n ?? 0;
  return { jobs, remaining: Math.max(0, total - jobs.length) };
}

function repair(
  ctx: QueueContext,
  operation: RepairReport['operation'],
  selection: Selection,
  filter: RepairFilter,
  change: (sql: SqlExecutor, ids: string, now: number) => void,
): RepairReport {
  const limit = Math.max(1, Math.min(filter.limit ?? ctx.config.pruneBatchSize, 10_000));
  const run = (sql: SqlExecutor): RepairReport => {
    const { jobs, remaining } = select(sql, selection, filter, limit);
    if (filter.apply === true && jobs.length > 0)
      change(sql, JSON.stringify(jobs.map((j) => j.id)), ctx.store.clock.now());
    return { operation, applied: filter.apply === true, matched: jobs.length, remaining, jobs };
  };
  return filter.apply === true ? ctx.store.write(run) : ctx.store.read(run);
}

const IN_IDS = 'id IN (SELECT value FROM json_each(?))';
const CLEAR = 'lease_token = NULL, lease_expires_at = NULL, leased_at = NULL, leased_by = NULL';

/** Dead jobs back to pending with attempts reset (after the cause was fixed). Dry-run unless `apply`. */
export function requeueDead(ctx: QueueContext, filter: RepairFilter = {}): RepairReport {
  return repair(ctx, 'requeueDead', { where: "status = 'dead'", params: [] }, filter, (sql, ids, now) => {
    sql.run(
      raw(
        `UPDATE memory_jobs SET status = 'pending', attempts = 0, interruptions = 0, run_at = ?, failed_at = NULL, updated_at = ?, ${CLEAR} WHERE ${IN_IDS}`,
        now,
        now,
        ids,
      ),
    );
  });
}

/**
 * Leases held longer than `olderThanMs` (default: one lease period) go back to pending, even if a
 * stuck worker keeps heartbeating. The attempt counts; out of attempts means dead. Dry-run unless `apply`.
 */
export function releaseStale(ctx: QueueContext, filter: RepairFilter & { olderThanMs?: number } = {}): RepairReport {
  const cutoff = ctx.store.clock.now() - (filter.olderThanMs ?? ctx.config.leaseMs);
  return repair(
    ctx,
    'releaseStale',
    { where: "status = 'leased' AND leased_at <= ?", params: [cutoff] },
    filter,
    (sql, ids, now) => {
      const released = sql.all<JobRow>(
        raw(
          `UPDATE memory_jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
           failed_at = CASE WHEN attempts >= max_attempts THEN ? ELSE failed_at END,
           error = 'lease released as stale by repair', run_at = ?, updated_at = ?, ${CLEAR}
         WHERE ${IN_IDS}
         RETURNING *`,
          now,
          now,
          now,
          ids,
        ),
      );
      notifyDead(
        ctx,
        released.filter((r) => r.status === 'dead'),
      );
    },
  );
}

/**
 * Cancels pending or leased jobs. A worker holding a cancelled job's lease gets `LEASE_LOST` at its
 * next heartbeat or completion and changes nothing. Dry-run unless `apply`.
 */
export function cancel(ctx: QueueContext, filter: RepairFilter = {}): RepairReport {
  return repair(ctx, 'cancel', { where: "status IN ('pending', 'leased')", params: [] }, filter, (sql, ids, now) => {
    sql.run(
      raw(
        `UPDATE memory_jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, ${CLEAR} WHERE ${IN_IDS}`,
        now,
        now,
        ids,
      ),
    );
  });
}
