import { all, get, type Program, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext, WithDead } from '../context.js';
import type { JobRow, JobStatus } from '../job.js';
import { readOnSqlite, writeDeadOnSqlite } from './run.js';
import { CLEAR_LEASE, dual, IN_IDS } from './statement.js';

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

/** The statement text for each dialect, with `?` placeholders, and its parameters. */
interface Where {
  readonly sqlite: string;
  readonly postgres: string;
  readonly params: readonly unknown[];
}

function matching(selection: Selection, filter: RepairFilter): Where {
  let sqlite = selection.where;
  let postgres = selection.where;
  const params = [...selection.params];
  if (filter.jobType !== undefined) {
    sqlite += ' AND job_type = ?';
    postgres += ' AND job_type = ?';
    params.push(filter.jobType);
  }
  if (filter.ids !== undefined) {
    sqlite += ` AND ${IN_IDS.sqlite}`;
    postgres += ` AND ${IN_IDS.postgres}`;
    params.push(JSON.stringify(filter.ids));
  }
  if (filter.documentId !== undefined) {
    sqlite += ' AND document_id = ?';
    postgres += ' AND document_id = ?';
    params.push(filter.documentId);
  }
  return { sqlite, postgres, params };
}

type Matched = { id: string; jobType: string; status: JobStatus };

/**
 * The jobs a repair matches (at most `limit`) and, when applied, the change made to them (by id)
 * with the jobs it dead-lettered. A dry run changes nothing.
 */
function* repairProgram(
  ctx: ProgramContext,
  operation: RepairReport['operation'],
  selection: Selection,
  filter: RepairFilter,
  change: (ids: string, now: number) => Program<readonly JobRow[]>,
): Program<WithDead<RepairReport>> {
  const limit = Math.max(1, Math.min(filter.limit ?? ctx.config.pruneBatchSize, 10_000));
  const where = matching(selection, filter);
  const jobs = yield* all<Matched>(
    dual(
      `SELECT id, job_type AS "jobType", status FROM memory_jobs WHERE ${where.sqlite} ORDER BY created_at, id LIMIT ?`,
      `SELECT id, job_type AS "jobType", status FROM memory_jobs WHERE ${where.postgres} ORDER BY created_at, id LIMIT ?`,
      ...where.params,
      limit,
    ),
  );
  const total =
    (yield* get<{ n: number }>(
      dual(
        `SELECT count(*) AS n FROM memory_jobs WHERE ${where.sqlite}`,
        `SELECT count(*) AS n FROM memory_jobs WHERE ${where.postgres}`,
        ...where.params,
      ),
    ))?.n ?? 0;
  const remaining = Math.max(0, total - jobs.length);
  const applied = filter.apply === true;
  const died =
    applied && jobs.length > 0 ? yield* change(JSON.stringify(jobs.map((j) => j.id)), ctx.store.clock.now()) : [];
  return { value: { operation, applied, matched: jobs.length, remaining, jobs }, died };
}

/** Runs a repair on SQLite: a read for a dry run, a write (telling dead jobs' owners) when applied. */
function onSqlite(ctx: QueueContext, filter: RepairFilter, program: Program<WithDead<RepairReport>>): RepairReport {
  return filter.apply === true ? writeDeadOnSqlite(ctx, program) : readOnSqlite(ctx, program).value;
}

/** Dead jobs back to pending with attempts reset (after the cause was fixed). Dry-run unless `apply`. */
export function requeueDeadProgram(ctx: ProgramContext, filter: RepairFilter = {}): Program<WithDead<RepairReport>> {
  return repairProgram(ctx, 'requeueDead', { where: "status = 'dead'", params: [] }, filter, function* (ids, now) {
    const set = `UPDATE memory_jobs SET status = 'pending', attempts = 0, interruptions = 0, run_at = ?, failed_at = NULL, updated_at = ?, ${CLEAR_LEASE} WHERE`;
    yield* run(dual(`${set} ${IN_IDS.sqlite}`, `${set} ${IN_IDS.postgres}`, now, now, ids));
    return [];
  });
}

/** {@link requeueDeadProgram} on SQLite. */
export function requeueDead(ctx: QueueContext, filter: RepairFilter = {}): RepairReport {
  return onSqlite(ctx, filter, requeueDeadProgram(ctx, filter));
}

/**
 * Leases held longer than `olderThanMs` (default: one lease period) go back to pending, even if a
 * stuck worker keeps heartbeating. The attempt counts; out of attempts means dead. Dry-run unless `apply`.
 */
export function releaseStaleProgram(
  ctx: ProgramContext,
  filter: RepairFilter & { olderThanMs?: number } = {},
): Program<WithDead<RepairReport>> {
  const cutoff = ctx.store.clock.now() - (filter.olderThanMs ?? ctx.config.leaseMs);
  return repairProgram(
    ctx,
    'releaseStale',
    { where: "status = 'leased' AND leased_at <= ?", params: [cutoff] },
    filter,
    function* (ids, now) {
      const set = `UPDATE memory_jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead' ELSE 'pending' END,
           failed_at = CASE WHEN attempts >= max_attempts THEN ? ELSE failed_at END,
           error = 'lease released as stale by repair', run_at = ?, updated_at = ?, ${CLEAR_LEASE}
         WHERE`;
      const released = yield* all<JobRow>(
        dual(`${set} ${IN_IDS.sqlite} RETURNING *`, `${set} ${IN_IDS.postgres} RETURNING *`, now, now, now, ids),
      );
      return released.filter((r) => r.status === 'dead');
    },
  );
}

/** {@link releaseStaleProgram} on SQLite. */
export function releaseStale(ctx: QueueContext, filter: RepairFilter & { olderThanMs?: number } = {}): RepairReport {
  return onSqlite(ctx, filter, releaseStaleProgram(ctx, filter));
}

/**
 * Cancels pending or leased jobs. A worker holding a cancelled job's lease gets `LEASE_LOST` at its
 * next heartbeat or completion and changes nothing. Dry-run unless `apply`.
 */
export function cancelProgram(ctx: ProgramContext, filter: RepairFilter = {}): Program<WithDead<RepairReport>> {
  return repairProgram(
    ctx,
    'cancel',
    { where: "status IN ('pending', 'leased')", params: [] },
    filter,
    function* (ids, now) {
      const set = `UPDATE memory_jobs SET status = 'cancelled', updated_at = ?, completed_at = ?, ${CLEAR_LEASE} WHERE`;
      yield* run(dual(`${set} ${IN_IDS.sqlite}`, `${set} ${IN_IDS.postgres}`, now, now, ids));
      return [];
    },
  );
}

/** {@link cancelProgram} on SQLite. */
export function cancel(ctx: QueueContext, filter: RepairFilter = {}): RepairReport {
  return onSqlite(ctx, filter, cancelProgram(ctx, filter));
}
