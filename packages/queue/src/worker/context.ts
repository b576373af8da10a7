import {
  type Clock,
  isMemoryError,
  type Logger,
  type MemoryConfig,
  type RandomSource,
  type ScheduledHandle,
  type Scheduler,
} from '@memory/core';
import type PQueue from 'p-queue';
import type { Job } from '../job.js';
import type { WorkerQueue } from '../queue.js';
import type { JobHandler, WorkerState } from '../worker.js';

/** One leased job while its handler runs. */
export interface InFlight {
  readonly job: Job;
  readonly token: string;
  readonly controller: AbortController;
  leaseLost: boolean;
  closing: boolean;
  deadlineHit: boolean;
  heartbeat: ScheduledHandle | undefined;
  deadline: ScheduledHandle | undefined;
  promise: Promise<void>;
}

/**
 * One worker: what it was created with (read-only) and its running state, which the worker's
 * functions (polling, attempts, close) share and update.
 */
export interface WorkerContext {
  readonly queue: WorkerQueue;
  readonly config: MemoryConfig['queue'];
  readonly jobTypes: readonly string[];
  readonly handler: JobHandler;
  readonly concurrency: number;
  readonly scheduler: Scheduler;
  readonly clock: Clock;
  readonly random: RandomSource;
  readonly logger: Logger;
  readonly workerId: string;
  readonly admission: PQueue | undefined;
  readonly inFlight: Map<string, InFlight>;
  /** Leases asked for and not yet answered: they count against `concurrency` like running jobs. */
  leasing: number;
  /** Fills waiting on an asynchronous lease (PostgreSQL): close waits for them to hand jobs back. */
  readonly fills: Set<Promise<unknown>>;
  state: WorkerState;
  /** The pending poll, if one is scheduled. */
  poll: ScheduledHandle | undefined;
  consecutiveFailures: number;
  completed: number;
  failed: number;
  lastError: string | null;
  releasedOnClose: number;
  /** The one close in progress (concurrent calls share it). */
  closing: Promise<{ released: number }> | undefined;
}

export const message = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * What a failed attempt records as the job's error (and the worker's `lastError`, and so the
 * diagnostics). A database driver's own message (it names tables, constraints, trigger text and can
 * echo stored values) is never recorded: a handler that reached the driver directly gets a generic
 * database error with SQLite's result code. Errors from the store are already `MemoryError`s that
 * carry no driver text.
 */
export function jobErrorText(error: unknown): string {
  if (isMemoryError(error)) return error.message;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code.startsWith('SQLITE_')) return `database error (${code})`;
  if (error instanceof Error && error.name === 'SqliteError') return 'database error';
  return message(error);
}

/** Counts a failed attempt (or lease) and remembers its error. */
export function recordFailure(ctx: WorkerContext, error: string): void {
  ctx.consecutiveFailures++;
  ctx.failed++;
  ctx.lastError = error;
}

/** A value, or a promise of one: what a queue call answers (SQLite: the value, PostgreSQL: a promise). */
export type Awaitable<T> = T | Promise<T>;

/**
 * Continues with `next` once `value` is there: at once for a plain value, so the synchronous SQLite
 * queue's path through the worker takes no extra promise ticks; after it resolves for a promise.
 */
export function andThen<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Calls `fn` and handles its result or failure, whether it answers synchronously or with a promise. */
export function attempt<T, R>(
  fn: () => Awaitable<T>,
  ok: (value: T) => Awaitable<R>,
  failed: (error: unknown) => Awaitable<R>,
): Awaitable<R> {
  let value: Awaitable<T>;
  try {
    value = fn();
  } catch (error) {
    return failed(error);
  }
  return value instanceof Promise ? value.then(ok, failed) : ok(value);
}

/**
 * Runs a queue call made after a job settles. Such calls can themselves fail (the store was closed,
 * the disk is full): they are logged, never thrown into the scheduler. Answers whether it succeeded.
 */
export function safely(ctx: WorkerContext, what: string, jobId: string, fn: () => unknown): Awaitable<boolean> {
  return attempt(
    fn,
    () => true,
    (error) => {
      if (isMemoryError(error, 'LEASE_LOST')) ctx.logger.info(`${what}: lease already lost`, { jobId });
      else ctx.logger.error(`${what} failed`, { jobId, error: message(error) });
      return false;
    },
  );
}
