import {
  type Clock,
  cryptoRandom,
  type Logger,
  MemoryError,
  type RandomSource,
  type Scheduler,
  silentLogger,
} from '@memory/core';
import type PQueue from 'p-queue';
import type { Job } from './job.js';
import type { WorkerQueue } from './queue.js';
import { closeWorker } from './worker/close.js';
import type { WorkerContext } from './worker/context.js';
import { fill, schedulePoll } from './worker/poll.js';

/** What a handler gets besides the job. */
export interface JobContext {
  /** Aborted on deadline, lost lease, or worker close. Check it at each checkpoint. */
  readonly signal: AbortSignal;
  /** Epoch ms after which the attempt is aborted and failed. */
  readonly deadline: number;
}

/** Does the job's work. Its resolved value is stored as the job's result (JSON). */
export type JobHandler = (job: Job, context: JobContext) => Promise<unknown>;

export interface WorkerOptions {
  /** The SQLite queue or the PostgreSQL one. */
  readonly queue: WorkerQueue;
  /** Job types this worker leases. */
  readonly jobTypes: readonly string[];
  readonly handler: JobHandler;
  /** Jobs run at once by this worker. @default 1 */
  readonly concurrency?: number;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  /** For poll-backoff jitter. @default cryptoRandom */
  readonly random?: RandomSource;
  /** A shared admission limit the handler runs through (document ingest, the LLM semaphore). */
  readonly admission?: PQueue;
  /** Recorded on leases. @default `worker-<types>` */
  readonly workerId?: string;
  readonly logger?: Logger;
}

export type WorkerState = 'idle' | 'running' | 'closing' | 'closed';

export interface WorkerStatus {
  readonly workerId: string;
  readonly jobTypes: readonly string[];
  readonly state: WorkerState;
  readonly inFlight: number;
  readonly consecutiveFailures: number;
  readonly completed: number;
  readonly failed: number;
  readonly lastError: string | null;
}

export interface Worker {
  /** Starts polling through the scheduler. Idempotent. */
  start(): void;
  /** Leases and runs due jobs now (up to `maxJobs`), waiting for them; for hosts that drive work themselves. */
  runOnce(maxJobs?: number): Promise<number>;
  status(): WorkerStatus;
  /**
   * Stops leasing, aborts in-flight handlers, waits up to `deadlineMs` for them, and releases any
   * job still held. Concurrent calls share one close. Resolves with the number of jobs released.
   */
  close(options?: { deadlineMs?: number }): Promise<{ released: number }>;
}

/**
 * A worker that polls the queue through the injected scheduler, runs a handler per leased job with
 * an AbortSignal and a deadline, heartbeats long jobs, and completes or fails them. Its behaviour
 * lives in `worker/` as functions over one {@link WorkerContext}: polling and leasing (`poll.ts`),
 * one attempt of a job (`attempt.ts`), and close (`close.ts`).
 *
 * @example
 * ```ts
 * const worker = createWorker({ queue, jobTypes: ['document_ingest'], handler, scheduler, clock });
 * worker.start();
 * await worker.close();
 * ```
 */
export function createWorker(options: WorkerOptions): Worker {
  const ctx: WorkerContext = {
    queue: options.queue,
    config: options.queue.config,
    jobTypes: options.jobTypes,
    handler: options.handler,
    concurrency: Math.max(1, Math.floor(options.concurrency ?? 1)),
    scheduler: options.scheduler,
    clock: options.clock,
    random: options.random ?? cryptoRandom,
    logger: options.logger ?? silentLogger,
    workerId: options.workerId ?? `worker-${options.jobTypes.join('+')}`,
    admission: options.admission,
    inFlight: new Map(),
    leasing: 0,
    fills: new Set(),
    state: 'idle',
    poll: undefined,
    consecutiveFailures: 0,
    completed: 0,
    failed: 0,
    lastError: null,
    releasedOnClose: 0,
    closing: undefined,
  };
  return {
    start() {
      if (ctx.state !== 'idle') return;
      ctx.state = 'running';
      schedulePoll(ctx, 0);
    },
    runOnce: (maxJobs = 100) => runOnce(ctx, maxJobs),
    status: () => ({
      workerId: ctx.workerId,
      jobTypes: ctx.jobTypes,
      state: ctx.state,
      inFlight: ctx.inFlight.size,
      consecutiveFailures: ctx.consecutiveFailures,
      completed: ctx.completed,
      failed: ctx.failed,
      lastError: ctx.lastError,
    }),
    close(closeOptions = {}) {
      ctx.closing ??= closeWorker(ctx, closeOptions.deadlineMs ?? ctx.config.closeDeadlineMs);
      return ctx.closing;
    },
  };
}

/** Leases and runs due jobs now, up to `maxJobs`, waiting for each batch; returns how many ran. */
async function runOnce(ctx: WorkerContext, maxJobs: number): Promise<number> {
  if (ctx.state === 'closing' || ctx.state === 'closed') throw new MemoryError('ENGINE_CLOSED', 'the worker is closed');
  let ran = 0;
  while (ran < maxJobs) {
    const filling = fill(ctx, Math.min(ctx.concurrency, maxJobs - ran));
    const started = filling instanceof Promise ? await filling : filling;
    if (started.length === 0) break;
    await Promise.all(started.map((e) => e.promise));
    ran += started.length;
  }
  return ran;
}
