import {
  type Clock,
  cryptoRandom,
  isMemoryError,
  type Logger,
  MemoryError,
  type RandomSource,
  type ScheduledHandle,
  type Scheduler,
  silentLogger,
  yieldToEventLoop,
} from '@memory/core';
import type PQueue from 'p-queue';
import { PermanentJobError, RetryJobError } from './errors.js';
import type { Job } from './job.js';
import type { Queue } from './queue.js';
import { pollBackoff } from './retry.js';

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
  readonly queue: Queue;
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

interface InFlight {
  readonly job: Job;
  readonly token: string;
  readonly controller: AbortController;
  started: boolean;
  leaseLost: boolean;
  closing: boolean;
  deadlineHit: boolean;
  heartbeat: ScheduledHandle | undefined;
  deadline: ScheduledHandle | undefined;
  promise: Promise<void>;
}

/** The abort reason a handler sees when its attempt runs past `jobDeadlineMs`. */
export class JobDeadlineError extends Error {
  override readonly name = 'JobDeadlineError';
}

const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * A worker that polls the queue through the injected scheduler, runs a handler per leased job with
 * an AbortSignal and a deadline, heartbeats long jobs, and completes or fails them.
 *
 * @example
 * ```ts
 * const worker = createWorker({ queue, jobTypes: ['document_ingest'], handler, scheduler, clock });
 * worker.start();
 * await worker.close();
 * ```
 */
export function createWorker(options: WorkerOptions): Worker {
  const { queue, jobTypes, handler, scheduler, clock } = options;
  const config = queue.config;
  const concurrency = Math.max(1, Math.floor(options.concurrency ?? 1));
  const random = options.random ?? cryptoRandom;
  const logger = options.logger ?? silentLogger;
  const workerId = options.workerId ?? `worker-${jobTypes.join('+')}`;
  const inFlight = new Map<string, InFlight>();
  let state: WorkerState = 'idle';
  let poll: ScheduledHandle | undefined;
  let consecutiveFailures = 0;
  let completed = 0;
  let failed = 0;
  let lastError: string | null = null;
  let releasedOnClose = 0;
  let closing: Promise<{ released: number }> | undefined;

  const recordFailure = (error: string): void => {
    consecutiveFailures++;
    failed++;
    lastError = error;
  };

  // Queue calls after a job settles can themselves fail (the store was closed, the disk is full):
  // they are logged, never thrown into the scheduler.
  const safely = (what: string, jobId: string, fn: () => void): boolean => {
    try {
      fn();
      return true;
    } catch (error) {
      if (isMemoryError(error, 'LEASE_LOST')) logger.info(`${what}: lease already lost`, { jobId });
      else logger.error(`${what} failed`, { jobId, error: message(error) });
      return false;
    }
  };

  const stopTimers = (entry: InFlight): void => {
    entry.heartbeat?.cancel();
    entry.deadline?.cancel();
  };

  const schedulePoll = (delayMs: number): void => {
    if (state !== 'running' || poll) return;
    poll = scheduler.schedule(tick, delayMs);
  };

  /** Replaces the pending poll: after a job settles, look again now, or after the failure backoff. */
  const reschedulePoll = (): void => {
    poll?.cancel();
    poll = undefined;
    schedulePoll(consecutiveFailures > 0 ? nextDelay() : 0);
  };

  const nextDelay = (): number =>
    consecutiveFailures > 0 ? pollBackoff(consecutiveFailures, random) : config.pollIntervalMs;

  const settle = (entry: InFlight, outcome: { ok: true; result: unknown } | { ok: false; error: unknown }): void => {
    const { job, token } = entry;
    if (entry.leaseLost) {
      logger.info('job lease lost while running; result discarded', { jobId: job.id });
      return;
    }
    if (outcome.ok) {
      if (safely('complete', job.id, () => queue.complete(job.id, token, outcome.result))) completed++;
      consecutiveFailures = 0;
      return;
    }
    if (entry.closing) {
      // Interrupted by close, not failed: hand the job back (a finished handler completed above).
      safely('release', job.id, () => queue.release(job.id, token, { attemptConsumed: entry.started }));
      releasedOnClose++;
      return;
    }
    const error = outcome.error;
    const text = entry.deadlineHit ? `deadline of ${config.jobDeadlineMs} ms exceeded` : message(error);
    recordFailure(text);
    safely('fail', job.id, () => {
      if (error instanceof PermanentJobError) queue.fail(job.id, token, text, { permanent: true });
      else if (error instanceof RetryJobError) queue.fail(job.id, token, text, { retryDelayMs: error.delayMs });
      else queue.fail(job.id, token, text);
    });
  };

  const beat = (entry: InFlight): void => {
    entry.heartbeat = scheduler.schedule(() => {
      if (inFlight.get(entry.job.id) !== entry || entry.leaseLost) return;
      try {
        queue.heartbeat(entry.job.id, entry.token);
        beat(entry);
      } catch (error) {
        if (isMemoryError(error, 'LEASE_LOST')) {
          // Reaped, cancelled or released elsewhere: stop the handler; its outcome is discarded.
          entry.leaseLost = true;
          entry.controller.abort(error);
        } else {
          logger.warn('heartbeat failed; will retry', { jobId: entry.job.id, error: message(error) });
          beat(entry);
        }
      }
    }, config.heartbeatMs);
  };

  const startJob = (job: Job): InFlight => {
    const token = job.leaseToken ?? '';
    const controller = new AbortController();
    const deadline = clock.now() + config.jobDeadlineMs;
    const entry: InFlight = {
      job,
      token,
      controller,
      started: false,
      leaseLost: false,
      closing: false,
      deadlineHit: false,
      heartbeat: undefined,
      deadline: undefined,
      promise: Promise.resolve(),
    };
    inFlight.set(job.id, entry);
    beat(entry);
    entry.deadline = scheduler.schedule(() => {
      entry.deadlineHit = true;
      controller.abort(new JobDeadlineError(`job ${job.id} exceeded its deadline of ${config.jobDeadlineMs} ms`));
    }, config.jobDeadlineMs);
    const invoke = async (): Promise<unknown> => {
      if (controller.signal.aborted) throw controller.signal.reason;
      entry.started = true;
      return handler(job, { signal: controller.signal, deadline });
    };
    entry.promise = (options.admission ? options.admission.add(invoke) : invoke())
      .then(
        (result) => settle(entry, { ok: true, result }),
        (error: unknown) => settle(entry, { ok: false, error }),
      )
      .finally(() => {
        stopTimers(entry);
        inFlight.delete(job.id);
        // A slot is free: look for more work now (or after the backoff) rather than at the next poll.
        if (state === 'running') reschedulePoll();
      });
    return entry;
  };

  /** Leases up to the free capacity; returns the entries started. */
  const fill = (limit: number): InFlight[] => {
    const started: InFlight[] = [];
    try {
      while (inFlight.size < concurrency && started.length < limit) {
        const job = queue.lease(jobTypes, workerId);
        if (!job) break;
        started.push(startJob(job));
      }
    } catch (error) {
      recordFailure(message(error));
      logger.warn('lease failed', { workerId, error: message(error) });
    }
    return started;
  };

  async function tick(): Promise<void> {
    poll = undefined;
    if (state !== 'running') return;
    fill(concurrency);
    schedulePoll(nextDelay());
  }

  return {
    start() {
      if (state !== 'idle') return;
      state = 'running';
      schedulePoll(0);
    },
    async runOnce(maxJobs = 100) {
      if (state === 'closing' || state === 'closed') throw new MemoryError('ENGINE_CLOSED', 'the worker is closed');
      let ran = 0;
      while (ran < maxJobs) {
        const started = fill(Math.min(concurrency, maxJobs - ran));
        if (started.length === 0) break;
        await Promise.all(started.map((e) => e.promise));
        ran += started.length;
      }
      return ran;
    },
    status: () => ({
      workerId,
      jobTypes,
      state,
      inFlight: inFlight.size,
      consecutiveFailures,
      completed,
      failed,
      lastError,
    }),
    close(closeOptions = {}) {
      closing ??= (async () => {
        state = 'closing';
        poll?.cancel();
        poll = undefined;
        const entries = [...inFlight.values()];
        for (const entry of entries) {
          entry.closing = true;
          entry.controller.abort(new MemoryError('ENGINE_CLOSED', 'the worker is closing'));
        }
        // The deadline runs on the injected scheduler: with a manual scheduler, the host advances it.
        const deadlineMs = closeOptions.deadlineMs ?? config.closeDeadlineMs;
        if (entries.length > 0 && deadlineMs > 0) {
          let timer: ScheduledHandle | undefined;
          const deadline = new Promise<void>((resolve) => {
            timer = scheduler.schedule(resolve, deadlineMs);
          });
          await Promise.race([Promise.allSettled(entries.map((e) => e.promise)), deadline]);
          timer?.cancel();
        } else {
          // Give handlers that stop at once (already aborted) a chance to settle.
          await yieldToEventLoop();
        }
        // Handlers that ignored the abort past the deadline: give their jobs back now. If such a
        // handler finishes later, its completion meets LEASE_LOST and changes nothing.
        for (const entry of inFlight.values()) {
          entry.leaseLost = true;
          stopTimers(entry);
          safely('release', entry.job.id, () =>
            queue.release(entry.job.id, entry.token, { attemptConsumed: entry.started }),
          );
          releasedOnClose++;
        }
        inFlight.clear();
        state = 'closed';
        return { released: releasedOnClose };
      })();
      return closing;
    },
  };
}
