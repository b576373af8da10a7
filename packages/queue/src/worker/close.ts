import { MemoryError, type ScheduledHandle, yieldToEventLoop } from '@memory/core';
import { stopTimers } from './attempt.js';
import { safely, type WorkerContext } from './context.js';

/**
 * Stops leasing, aborts in-flight handlers, waits up to `deadlineMs` for them, and releases any
 * job still held. Resolves with the number of jobs released over the worker's life.
 */
export async function closeWorker(ctx: WorkerContext, deadlineMs: number): Promise<{ released: number }> {
  ctx.state = 'closing';
  ctx.poll?.cancel();
  ctx.poll = undefined;
  const entries = [...ctx.inFlight.values()];
  for (const entry of entries) {
    entry.closing = true;
    entry.controller.abort(new MemoryError('ENGINE_CLOSED', 'the worker is closing'));
  }
  // The deadline runs on the injected scheduler: with a manual scheduler, the host advances it.
  if (entries.length > 0 && deadlineMs > 0) {
    let timer: ScheduledHandle | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = ctx.scheduler.schedule(resolve, deadlineMs);
    });
    await Promise.race([Promise.allSettled(entries.map((e) => e.promise)), deadline]);
    timer?.cancel();
  } else {
    // Give handlers that stop at once (already aborted) a chance to settle.
    await yieldToEventLoop();
  }
  // A lease still in flight (PostgreSQL) hands its job straight back once it lands: wait for that.
  if (ctx.fills.size > 0) await Promise.allSettled([...ctx.fills]);
  // Handlers that ignored the abort past the deadline: give their jobs back now, attempt included
  // (a handler that hangs is bounded by `jobDeadlineMs` while it runs, not by shutdowns). If such a
  // handler finishes later, its completion meets LEASE_LOST and changes nothing.
  const stuck = [...ctx.inFlight.values()];
  for (const entry of stuck) {
    entry.leaseLost = true;
    stopTimers(entry);
  }
  for (const entry of stuck) {
    await safely(ctx, 'release', entry.job.id, () => ctx.queue.release(entry.job.id, entry.token));
    ctx.releasedOnClose++;
  }
  ctx.inFlight.clear();
  ctx.state = 'closed';
  return { released: ctx.releasedOnClose };
}
