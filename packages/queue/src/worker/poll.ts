import { pollBackoff } from '../retry.js';
import { startAttempt } from './attempt.js';
import { type InFlight, message, recordFailure, type WorkerContext } from './context.js';

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

async function tick(ctx: WorkerContext): Promise<void> {
  ctx.poll = undefined;
  if (ctx.state !== 'running') return;
  fill(ctx, ctx.concurrency);
  schedulePoll(ctx, nextDelay(ctx));
}

/** Leases up to the free capacity (at most `limit` jobs) and starts them; returns the entries started. */
export function fill(ctx: WorkerContext, limit: number): InFlight[] {
  const started: InFlight[] = [];
  try {
    while (ctx.inFlight.size < ctx.concurrency && started.length < limit) {
      const job = ctx.queue.lease(ctx.jobTypes, ctx.workerId);
      if (!job) break;
      started.push(
        startAttempt(ctx, job, () => {
          // A slot is free: look for more work now (or after the backoff) rather than at the next poll.
          if (ctx.state === 'running') reschedulePoll(ctx);
        }),
      );
    }
  } catch (error) {
    recordFailure(ctx, message(error));
    ctx.logger.warn('lease failed', { workerId: ctx.workerId, error: message(error) });
  }
  return started;
}
