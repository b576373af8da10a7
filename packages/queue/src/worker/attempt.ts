import { isMemoryError, type LogFields } from '@memory/core';
import { JobDeadlineError, PermanentJobError, RetryJobError } from '../errors.js';
import type { Job, JobStatus } from '../job.js';
import {
  type Awaitable,
  andThen,
  attempt,
  type InFlight,
  jobErrorText,
  message,
  recordFailure,
  safely,
  type WorkerContext,
} from './context.js';

/**
 * Starts one attempt of a leased job: heartbeats, the deadline timer, and the handler (through the
 * admission limit when there is one). `settled` runs after the outcome is recorded and the job has
 * left the in-flight set.
 */
export function startAttempt(ctx: WorkerContext, job: Job, settled: () => void): InFlight {
  const { config } = ctx;
  const token = job.leaseToken ?? '';
  const controller = new AbortController();
  const deadline = ctx.clock.now() + config.jobDeadlineMs;
  const entry: InFlight = {
    job,
    token,
    controller,
    leaseLost: false,
    closing: false,
    deadlineHit: false,
    heartbeat: undefined,
    deadline: undefined,
    promise: Promise.resolve(),
  };
  ctx.inFlight.set(job.id, entry);
  beat(ctx, entry);
  entry.deadline = ctx.scheduler.schedule(() => {
    entry.deadlineHit = true;
    controller.abort(new JobDeadlineError(`job ${job.id} exceeded its deadline of ${config.jobDeadlineMs} ms`));
  }, config.jobDeadlineMs);
  const invoke = async (): Promise<unknown> => {
    if (controller.signal.aborted) throw controller.signal.reason;
    return ctx.handler(job, { signal: controller.signal, deadline });
  };
  entry.promise = (ctx.admission ? ctx.admission.add(invoke) : invoke())
    .then(
      (result) => settle(ctx, entry, { ok: true, result }),
      (error: unknown) => settle(ctx, entry, { ok: false, error }),
    )
    .finally(() => {
      stopTimers(entry);
      ctx.inFlight.delete(job.id);
      settled();
    });
  return entry;
}

/** Cancels an attempt's heartbeat and deadline timers. */
export function stopTimers(entry: InFlight): void {
  entry.heartbeat?.cancel();
  entry.deadline?.cancel();
}

/** Heartbeats the lease every `heartbeatMs` while the attempt runs; a lost lease aborts the handler. */
function beat(ctx: WorkerContext, entry: InFlight): void {
  const live = () => ctx.inFlight.get(entry.job.id) === entry && !entry.leaseLost;
  entry.heartbeat = ctx.scheduler.schedule(() => {
    if (!live()) return;
    return attempt(
      () => ctx.queue.heartbeat(entry.job.id, entry.token),
      () => {
        // The attempt may have settled while the heartbeat was in flight.
        if (live()) beat(ctx, entry);
      },
      (error) => {
        if (!live()) return;
        if (isMemoryError(error, 'LEASE_LOST')) {
          // Reaped, cancelled or released elsewhere: stop the handler; its outcome is discarded.
          entry.leaseLost = true;
          entry.controller.abort(error);
        } else {
          ctx.logger.warn('heartbeat failed; will retry', { jobId: entry.job.id, error: message(error) });
          beat(ctx, entry);
        }
      },
    );
  }, ctx.config.heartbeatMs);
}

/** Records an attempt's outcome: complete, release (interrupted by close) or fail (retry or dead). */
function settle(
  ctx: WorkerContext,
  entry: InFlight,
  outcome: { ok: true; result: unknown } | { ok: false; error: unknown },
): Awaitable<void> {
  const { queue, logger } = ctx;
  const { job, token } = entry;
  if (entry.leaseLost) {
    logger.info('job lease lost while running; result discarded', { jobId: job.id });
    return;
  }
  if (outcome.ok) {
    return andThen(
      safely(ctx, 'complete', job.id, () => queue.complete(job.id, token, outcome.result)),
      (done) => {
        if (done) ctx.completed++;
        ctx.consecutiveFailures = 0;
      },
    );
  }
  if (entry.closing) {
    // Interrupted by close, not failed: hand the job back with its attempt (a finished handler
    // completed above). A graceful shutdown never uses up a job's attempts.
    return andThen(
      safely(ctx, 'release', job.id, () => queue.release(job.id, token)),
      () => {
        ctx.releasedOnClose++;
      },
    );
  }
  const error = outcome.error;
  const text = entry.deadlineHit ? `deadline of ${ctx.config.jobDeadlineMs} ms exceeded` : jobErrorText(error);
  recordFailure(ctx, text);
  const permanent = isPermanent(error);
  let status: JobStatus | undefined;
  const failJob = () => {
    if (permanent) return queue.fail(job.id, token, text, { permanent: true });
    if (error instanceof RetryJobError) return queue.fail(job.id, token, text, { retryDelayMs: error.delayMs });
    return queue.fail(job.id, token, text);
  };
  return andThen(
    safely(ctx, 'fail', job.id, () =>
      andThen(failJob(), (s) => {
        status = s;
      }),
    ),
    () => {
      if (status !== undefined) logger.warn(`${job.jobType} job failed`, failureFields(entry, error, text, status));
    },
  );
}

/**
 * Whether retrying cannot help: a {@link PermanentJobError}, or a `MemoryError` whose details say
 * `retryable: false` (a provider's 401 or 403: a wrong or missing key does not fix itself in seconds).
 */
function isPermanent(error: unknown): boolean {
  return error instanceof PermanentJobError || (isMemoryError(error) && error.details['retryable'] === false);
}

/** What a host needs from a failed attempt's log line: which job, which attempt, what code, what next. */
function failureFields(entry: InFlight, error: unknown, text: string, status: JobStatus): LogFields {
  const { job } = entry;
  const httpStatus = isMemoryError(error) ? error.details['status'] : undefined;
  return {
    jobId: job.id,
    jobType: job.jobType,
    attempt: job.attempts,
    maxAttempts: job.maxAttempts,
    code: entry.deadlineHit ? 'DEADLINE' : errorCode(error),
    ...(typeof httpStatus === 'number' ? { httpStatus } : {}),
    error: text,
    outcome: status === 'dead' ? 'dead' : 'retry',
  };
}

/** A stable code for a handler's error: the `MemoryError` code, a Node or driver code, or the class name. */
function errorCode(error: unknown): string {
  if (isMemoryError(error)) return error.code;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return error instanceof Error ? error.name : 'UNKNOWN';
}
