import type { Job } from '../job.js';
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
  await fill(ctx, ctx.concurrency);
  schedulePoll(ctx, nextDelay(ctx));
}

/** Whether close has begun (read through a call: it changes while a lease is awaited). */
function stopping(ctx: WorkerContext): boolean {
  return ctx.state === 'closing' || ctx.state === 'closed';
}

/**
 * Leases up to the free capacity (at most `limit` jobs) and starts them; resolves with the entries
 * started. Fills may overlap (a poll, and a slot freed meanwhile): a lease in flight holds its slot.
 */
export async function fill(ctx: WorkerContext, limit: number): Promise<InFlight[]> {
  const started: InFlight[] = [];
  try {
    while (
      ctx.state !== 'closing' &&
      ctx.state !== 'closed' &&
      ctx.inFlight.size + ctx.leasing < ctx.concurrency &&
      started.length < limit
    ) {
      ctx.leasing++;
      let job: Job | undefined;
      try {
        job = await ctx.queue.lease(ctx.jobTypes, ctx.workerId);
      } finally {
        ctx.leasing--;
      }
      if (!job) break;
      if (stopping(ctx)) {
        // Closed while the lease was in flight: hand the job straight back, attempt included.
        await ctx.queue.release(job.id, job.leaseToken ?? '');
        break;
      }
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
