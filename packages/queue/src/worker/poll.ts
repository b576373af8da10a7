import type { Job } from '../job.js';
import { pollBackoff } from '../retry.js';
import { startAttempt } from './attempt.js';
import {
  type Awaitable,
  andThen,
  attempt,
  type InFlight,
  message,
  recordFailure,
  type WorkerContext,
} from './context.js';

/** Schedules the next poll unless the worker stopped running or one is already pending. */
export function schedulePoll(ctx: WorkerContext, delayMs: number): void {
  if (ctx.state !== 'running' || ctx.poll) return;
  ctx.poll = ctx.scheduler.schedule(() => tick(ctx), delayMs);
}

/** Replaces the pending poll: after a job settles, look again now, or after the failure backoff. */
function reschedulePoll(ctx: WorkerContext): void {
  ctx.poll?.cancel();
  ctx.poll = undefined;
  schedulePoll(ctx, ctx.consecutiveFailures > 0 ? nextDelay(ctx) : 0);
}

/** The poll interval, or the backoff after consecutive failures. */
function nextDelay(ctx: WorkerContext): number {
  return ctx.consecutiveFailures > 0 ? pollBackoff(ctx.consecutiveFailures, ctx.random) : ctx.config.pollIntervalMs;
}

function tick(ctx: WorkerContext): Awaitable<void> {
  ctx.poll = undefined;
  if (ctx.state !== 'running') return;
  return andThen(fill(ctx, ctx.concurrency), () => schedulePoll(ctx, nextDelay(ctx)));
}

/** Whether close has begun (read through a call: it changes while a lease is awaited). */
function stopping(ctx: WorkerContext): boolean {
  return ctx.state === 'closing' || ctx.state === 'closed';
}

/**
 * Leases up to the free capacity (at most `limit` jobs) and starts them; answers the entries
 * started (synchronously on the SQLite queue). Fills may overlap on PostgreSQL (a poll, and a slot
 * freed meanwhile): a lease in flight holds its slot.
 */
export function fill(ctx: WorkerContext, limit: number): Awaitable<InFlight[]> {
  const started: InFlight[] = [];
  // Starts a leased job, or (closed while the lease was in flight) hands it straight back.
  // Answers whether to lease again.
  const take = (job: Job | undefined): Awaitable<boolean> => {
    if (!job) return false;
    if (stopping(ctx)) return andThen(ctx.queue.release(job.id, job.leaseToken ?? ''), () => false);
    started.push(
      startAttempt(ctx, job, () => {
        // A slot is free: look for more work now (or after the backoff) rather than at the next poll.
        if (ctx.state === 'running') reschedulePoll(ctx);
      }),
    );
    return true;
  };
  const leaseOne = (): Awaitable<boolean> => {
    ctx.leasing++;
    return attempt(
      () => ctx.queue.lease(ctx.jobTypes, ctx.workerId),
      (job) => {
        ctx.leasing--;
        return take(job);
      },
      (error) => {
        ctx.leasing--;
        throw error;
      },
    );
  };
  const more = (): Awaitable<InFlight[]> => {
    while (!stopping(ctx) && ctx.inFlight.size + ctx.leasing < ctx.concurrency && started.length < limit) {
      const again = leaseOne();
      if (again instanceof Promise) {
        const rest = again.then((yes) => (yes ? more() : started));
        ctx.fills.add(rest);
        const done = () => ctx.fills.delete(rest);
        rest.then(done, done);
        return rest;
      }
      if (!again) break;
    }
    return started;
  };
  return attempt(
    more,
    (entries) => entries,
    (error) => {
      recordFailure(ctx, message(error));
      ctx.logger.warn('lease failed', { workerId: ctx.workerId, error: message(error) });
      return started;
    },
  );
}
