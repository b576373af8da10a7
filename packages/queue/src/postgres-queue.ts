import { defaultConfig, type MemoryConfig, MemoryError, yieldToEventLoop } from '@memory/core';
import type { PostgresStore } from '@memory/store/postgres';
import type { Program } from '@memory/store/sql';
import type { PostgresDeadJobHook, ProgramContext, WithDead } from './context.js';
import type { Job, JobStatus } from './job.js';
import { completeProgram, resultText } from './operations/complete.js';
import { notifyDeadProgram } from './operations/dead-letter.js';
import { type EnqueueInput, type EnqueueResult, enqueueProgram, parseEnqueue } from './operations/enqueue.js';
import { type FailOptions, failProgram } from './operations/fail.js';
import { getProgram } from './operations/get.js';
import { healthProgram, type JobTypeHealth } from './operations/health.js';
import { heartbeatProgram } from './operations/heartbeat.js';
import { leaseProgram } from './operations/lease.js';
import {
  type PruneOptions,
  type PruneReport,
  pruneBatchProgram,
  pruneCountProgram,
  pruneCutoffs,
} from './operations/prune.js';
import { type ReapResult, reapProgram, recoverProgram } from './operations/reap.js';
import { releaseProgram } from './operations/release.js';
import {
  cancelProgram,
  type RepairFilter,
  type RepairReport,
  releaseStaleProgram,
  requeueDeadProgram,
} from './operations/repair.js';

/**
 * The queue's promise API, the same on either dialect: what a `createPostgresQueue` returns, and
 * what a SQLite {@link Queue} offers as `queue.portable` (its synchronous operations seen through
 * promises; `enqueueProgram` and program dead-letter hooks run inside SQLite's transactions).
 */
export type PortableQueue = PostgresQueue;

/**
 * The durable job queue on PostgreSQL: the {@link Queue}'s operations and semantics, as promises.
 * Any number of processes may share one database. Isolation per operation:
 * - the per-job hot path (lease, heartbeat, complete, release) runs READ COMMITTED on row locks:
 *   a lease takes the oldest eligible job with `FOR UPDATE SKIP LOCKED`, and the others update the
 *   job's row guarded by status and token (an UPDATE that waited on the row lock re-checks the guard
 *   against the committed row), so two holders of one job are serialized by the lock and the
 *   second gets `LEASE_LOST`. SERIALIZABLE
 *   adds nothing to that one-row invariant, but aborts concurrent completions of *different* jobs
 *   that share index pages (four processes exhausted eight retries within a few hundred jobs);
 * - everything that read-then-writes several rows, or where SQLite relied on its single writer,
 *   runs SERIALIZABLE and is re-run on a conflict: enqueue (dedup lookup, then insert), fail (it may
 *   dead-letter and run the owner's hook), reaping, startup recovery, repairs and prune. A reap
 *   racing a heartbeat, or a repair racing a completion, fails serialization, is re-run, and sees
 *   the other's commit.
 */
export interface PostgresQueue {
  readonly config: MemoryConfig['queue'];
  /** Adds a pending job; an equivalent pending or leased job (same type and dedup key) is returned instead. */
  enqueue(input: EnqueueInput): Promise<EnqueueResult>;
  /**
   * The enqueue as a program, to run inside the caller's own write (the job commits, or not, with
   * the caller's rows). Input is validated now: a bad request throws here.
   */
  enqueueProgram(input: EnqueueInput): Program<EnqueueResult>;
  /** Leases the oldest eligible job of these types for `workerId`, or undefined. */
  lease(jobTypes: readonly string[], workerId: string): Promise<Job | undefined>;
  /** Extends a held lease; resolves with the new expiry. `LEASE_LOST` if the lease is gone. */
  heartbeat(jobId: string, token: string): Promise<number>;
  /** Completes a leased job. `LEASE_LOST` if the lease is gone. */
  complete(jobId: string, token: string, result?: unknown): Promise<void>;
  /** Fails an attempt: retry later, or dead. Resolves with the new status. `LEASE_LOST` if the lease is gone. */
  fail(jobId: string, token: string, error: string, options?: FailOptions): Promise<JobStatus>;
  /** Hands a leased job back, refunding the attempt unless `attemptConsumed`. */
  release(jobId: string, token: string, options?: { attemptConsumed?: boolean }): Promise<void>;
  /** Expired leases → pending (one interruption counted), or dead past the job's interruption limit. */
  reapExpiredLeases(): Promise<ReapResult>;
  /** Dead-letters pending jobs that are already out of attempts. Resolves with how many. */
  recoverOnStartup(): Promise<number>;
  /** Repairs: dry-run unless `apply: true`. */
  requeueDead(filter?: RepairFilter): Promise<RepairReport>;
  releaseStale(filter?: RepairFilter & { olderThanMs?: number }): Promise<RepairReport>;
  cancel(filter?: RepairFilter): Promise<RepairReport>;
  prune(options?: PruneOptions): Promise<PruneReport>;
  /** A job by id. */
  get(jobId: string): Promise<Job | undefined>;
  /** Health per job type. */
  health(): Promise<JobTypeHealth[]>;
  /**
   * Registers the owner of a job type: `hook` (a program) runs inside the transaction that
   * dead-letters a job of that type, in a savepoint of its own. One per type.
   */
  onDead(jobType: string, hook: PostgresDeadJobHook): void;
}

/**
 * Creates the queue over a PostgreSQL store's `memory_jobs` table. The store comes from
 * `openPostgresStore` (`@memory/store/postgres`); this package only uses its type.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ target: { connectionString } });
 * const queue = createPostgresQueue({ store });
 * await queue.enqueue({ jobType: 'document_ingest', payload: { documentId }, dedupKey: documentId });
 * ```
 */
export function createPostgresQueue(options: { store: PostgresStore; config?: MemoryConfig['queue'] }): PostgresQueue {
  const { store } = options;
  const ctx: ProgramContext = { store, config: options.config ?? defaultConfig.queue };
  const deadHooks = new Map<string, PostgresDeadJobHook>();

  const write = <R>(program: () => Program<R>): Promise<R> => store.write(program);
  // The per-job hot path: row locks, no predicate locks (see the interface's note).
  const locked = <R>(program: () => Program<R>): Promise<R> => store.write(program, { isolation: 'read committed' });
  // The dead jobs' owners are told in the same transaction; failed hooks are logged once it commits.
  const writeDead = async <R>(program: () => Program<WithDead<R>>): Promise<R> => {
    const { value, failures } = await store.write(function* () {
      const out = yield* program();
      return { value: out.value, failures: yield* notifyDeadProgram(deadHooks, out.died) };
    });
    for (const failure of failures) store.logger.warn('dead-letter hook failed', { ...failure });
    return value;
  };
  const repair = async (filter: RepairFilter, program: () => Program<WithDead<RepairReport>>) =>
    filter.apply === true ? writeDead(program) : (await store.read(program)).value;

  return Object.freeze({
    config: ctx.config,
    enqueue: async (input) => {
      const { request, payload } = parseEnqueue(ctx, input);
      return write(() => enqueueProgram(ctx, request, payload));
    },
    enqueueProgram: (input) => {
      const { request, payload } = parseEnqueue(ctx, input);
      return enqueueProgram(ctx, request, payload);
    },
    lease: async (jobTypes, workerId) =>
      jobTypes.length === 0 ? undefined : locked(() => leaseProgram(ctx, jobTypes, workerId)),
    heartbeat: (jobId, token) => locked(() => heartbeatProgram(ctx, jobId, token)),
    complete: async (jobId, token, result) => {
      const text = resultText(result);
      await locked(() => completeProgram(ctx, jobId, token, text));
    },
    fail: (jobId, token, error, opts) => writeDead(() => failProgram(ctx, jobId, token, error, opts)),
    release: (jobId, token, opts) => locked(() => releaseProgram(ctx, jobId, token, opts)),
    reapExpiredLeases: () => writeDead(() => reapProgram(ctx)),
    recoverOnStartup: () => writeDead(() => recoverProgram(ctx)),
    requeueDead: (filter = {}) => repair(filter, () => requeueDeadProgram(ctx, filter)),
    releaseStale: (filter = {}) => repair(filter, () => releaseStaleProgram(ctx, filter)),
    cancel: (filter = {}) => repair(filter, () => cancelProgram(ctx, filter)),
    prune: async (opts = {}) => {
      const cutoffs = pruneCutoffs(ctx, opts);
      const counts = await store.read(() => pruneCountProgram(cutoffs));
      if (opts.apply !== true) return { applied: false, ...counts };
      for (;;) {
        const removed = await write(() => pruneBatchProgram(ctx, cutoffs));
        if (removed < ctx.config.pruneBatchSize) break;
        await yieldToEventLoop();
      }
      return { applied: true, ...counts };
    },
    get: (jobId) => store.read(() => getProgram(jobId)),
    health: () => store.read(() => healthProgram(ctx)),
    onDead: (jobType, hook) => {
      if (deadHooks.has(jobType))
        throw new MemoryError('CONFLICT', `job type ${jobType} already has a dead-letter hook`, {
          details: { jobType },
        });
      deadHooks.set(jobType, hook);
    },
  } satisfies PostgresQueue);
}
