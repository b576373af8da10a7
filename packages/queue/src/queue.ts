import { defaultConfig, type MemoryConfig, MemoryError } from '@memory/core';
import type { Store } from '@memory/store';
import { runSqliteProgram } from '@memory/store/sql';
import type { DeadJobHook, QueueContext } from './context.js';
import type { Job, JobStatus } from './job.js';
import { complete } from './operations/complete.js';
import type { EnqueueInput } from './operations/enqueue.js';
import { type EnqueueResult, enqueue, enqueueProgram, parseEnqueue } from './operations/enqueue.js';
import { type FailOptions, fail } from './operations/fail.js';
import { get } from './operations/get.js';
import { health, type JobTypeHealth } from './operations/health.js';
import { heartbeat } from './operations/heartbeat.js';
import { lease } from './operations/lease.js';
import { type PruneOptions, type PruneReport, prune } from './operations/prune.js';
import { type ReapResult, reapExpiredLeases, recoverOnStartup } from './operations/reap.js';
import { release } from './operations/release.js';
import { cancel, type RepairFilter, type RepairReport, releaseStale, requeueDead } from './operations/repair.js';
import type { PortableQueue } from './postgres-queue.js';

/** The durable job queue over `memory_jobs`. Every operation is one short write transaction. */
export interface Queue {
  readonly config: MemoryConfig['queue'];
  /** Adds a pending job; an equivalent pending or leased job (same type and dedup key) is returned instead. */
  enqueue(input: EnqueueInput): EnqueueResult;
  /** Leases the oldest eligible job of these types for `workerId`, or undefined. */
  lease(jobTypes: readonly string[], workerId: string): Job | undefined;
  /** Extends a held lease; returns the new expiry. `LEASE_LOST` if the lease is gone. */
  heartbeat(jobId: string, token: string): number;
  /** Completes a leased job. `LEASE_LOST` if the lease is gone. */
  complete(jobId: string, token: string, result?: unknown): void;
  /** Fails an attempt: retry later, or dead. Returns the new status. `LEASE_LOST` if the lease is gone. */
  fail(jobId: string, token: string, error: string, options?: FailOptions): JobStatus;
  /** Hands a leased job back, refunding the attempt unless `attemptConsumed`. */
  release(jobId: string, token: string, options?: { attemptConsumed?: boolean }): void;
  /**
   * Expired leases → pending with the attempt given back and one interruption counted (dead past the
   * job's interruption limit), lease fields cleared.
   */
  reapExpiredLeases(): ReapResult;
  /** Dead-letters pending jobs that are already out of attempts. Returns how many. */
  recoverOnStartup(): number;
  /** Repairs: dry-run unless `apply: true`. */
  requeueDead(filter?: RepairFilter): RepairReport;
  releaseStale(filter?: RepairFilter & { olderThanMs?: number }): RepairReport;
  cancel(filter?: RepairFilter): RepairReport;
  prune(options?: PruneOptions): Promise<PruneReport>;
  /** A job by id. */
  get(jobId: string): Job | undefined;
  /** Health per job type. */
  health(): JobTypeHealth[];
  /**
   * Registers the owner of a job type: `hook` runs inside the transaction that dead-letters a job of
   * that type (whichever path: failure, interruptions, startup recovery, stale release), so the
   * owner's record of it (an import, a document) says `failed` in the same commit. One per type.
   */
  onDead(jobType: string, hook: DeadJobHook): void;
  /**
   * This queue through the promise API both dialects share (what code written for SQLite and
   * PostgreSQL alike uses): the same operations, settled at once; `enqueueProgram` enqueues inside
   * a program's transaction; dead-letter hooks are programs.
   */
  readonly portable: PortableQueue;
}

type Awaitable<T> = T | Promise<T>;

/**
 * What the worker and the reaper use of a queue: the SQLite {@link Queue} (synchronous) or the
 * PostgreSQL one (promises). They await every call; awaiting a plain value costs a microtask.
 */
export interface WorkerQueue {
  readonly config: MemoryConfig['queue'];
  lease(jobTypes: readonly string[], workerId: string): Awaitable<Job | undefined>;
  heartbeat(jobId: string, token: string): Awaitable<number>;
  complete(jobId: string, token: string, result?: unknown): Awaitable<void>;
  fail(jobId: string, token: string, error: string, options?: FailOptions): Awaitable<JobStatus>;
  release(jobId: string, token: string, options?: { attemptConsumed?: boolean }): Awaitable<void>;
  reapExpiredLeases(): Awaitable<ReapResult>;
}

/**
 * Creates the queue over a store's `memory_jobs` table.
 *
 * @example
 * ```ts
 * const queue = createQueue({ store });
 * queue.enqueue({ jobType: 'document_ingest', payload: { documentId }, dedupKey: documentId });
 * ```
 */
export function createQueue(options: { store: Store; config?: MemoryConfig['queue'] }): Queue {
  const ctx: QueueContext = {
    store: options.store,
    config: options.config ?? defaultConfig.queue,
    deadHooks: new Map(),
  };
  const onDead = (jobType: string, hook: DeadJobHook): void => {
    if (ctx.deadHooks.has(jobType))
      throw new MemoryError('CONFLICT', `job type ${jobType} already has a dead-letter hook`, {
        details: { jobType },
      });
    ctx.deadHooks.set(jobType, hook);
  };
  // Async arrows: a synchronous throw becomes a rejection, as on PostgreSQL.
  const portable: PortableQueue = Object.freeze({
    config: ctx.config,
    enqueue: async (input) => enqueue(ctx, input),
    enqueueProgram: (input) => {
      const { request, payload } = parseEnqueue(ctx, input);
      return enqueueProgram(ctx, request, payload);
    },
    lease: async (jobTypes, workerId) => lease(ctx, jobTypes, workerId),
    heartbeat: async (jobId, token) => heartbeat(ctx, jobId, token),
    complete: async (jobId, token, result) => complete(ctx, jobId, token, result),
    fail: async (jobId, token, error, opts) => fail(ctx, jobId, token, error, opts),
    release: async (jobId, token, opts) => release(ctx, jobId, token, opts),
    reapExpiredLeases: async () => reapExpiredLeases(ctx),
    recoverOnStartup: async () => recoverOnStartup(ctx),
    requeueDead: async (filter) => requeueDead(ctx, filter),
    releaseStale: async (filter) => releaseStale(ctx, filter),
    cancel: async (filter) => cancel(ctx, filter),
    prune: (opts) => prune(ctx, opts),
    get: async (jobId) => get(ctx, jobId),
    health: async () => health(ctx),
    onDead: (jobType, hook) => onDead(jobType, (sql, job) => runSqliteProgram(sql, hook(job))),
  } satisfies PortableQueue);
  return Object.freeze({
    config: ctx.config,
    portable,
    enqueue: (input) => enqueue(ctx, input),
    lease: (jobTypes, workerId) => lease(ctx, jobTypes, workerId),
    heartbeat: (jobId, token) => heartbeat(ctx, jobId, token),
    complete: (jobId, token, result) => complete(ctx, jobId, token, result),
    fail: (jobId, token, error, opts) => fail(ctx, jobId, token, error, opts),
    release: (jobId, token, opts) => release(ctx, jobId, token, opts),
    reapExpiredLeases: () => reapExpiredLeases(ctx),
    recoverOnStartup: () => recoverOnStartup(ctx),
    requeueDead: (filter) => requeueDead(ctx, filter),
    releaseStale: (filter) => releaseStale(ctx, filter),
    cancel: (filter) => cancel(ctx, filter),
    prune: (opts) => prune(ctx, opts),
    get: (jobId) => get(ctx, jobId),
    health: () => health(ctx),
    onDead,
  } satisfies Queue);
}
