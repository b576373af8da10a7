import { type Logger, type ScheduledHandle, type Scheduler, silentLogger } from '@memory/core';
import type { ReapResult } from './operations/reap.js';
import type { WorkerQueue } from './queue.js';

/** `R` is what a reap returns: a {@link ReapResult} on SQLite, a promise of one on PostgreSQL. */
export interface Reaper<R = ReapResult> {
  start(): void;
  /** Reaps now. */
  runOnce(): R;
  stop(): void;
}

/**
 * Runs `reapExpiredLeases` every `config.queue.reaperIntervalMs` through the scheduler, on the
 * SQLite queue or the PostgreSQL one.
 */
export function createReaper<Q extends WorkerQueue>(options: {
  queue: Q;
  scheduler: Scheduler;
  logger?: Logger;
}): Reaper<ReturnType<Q['reapExpiredLeases']>> {
  const { queue, scheduler } = options;
  const logger = options.logger ?? silentLogger;
  let handle: ScheduledHandle | undefined;
  let running = false;
  const report = (result: ReapResult): ReapResult => {
    if (result.requeued > 0 || result.dead > 0) logger.info('reaped expired leases', { ...result });
    return result;
  };
  const runOnce = (): ReturnType<Q['reapExpiredLeases']> => {
    const result = queue.reapExpiredLeases();
    return (result instanceof Promise ? result.then(report) : report(result)) as ReturnType<Q['reapExpiredLeases']>;
  };
  const tick = async (): Promise<void> => {
    handle = undefined;
    if (!running) return;
    try {
      await runOnce();
    } catch (error) {
      logger.warn('reaper failed', { error: error instanceof Error ? error.message : String(error) });
    }
    // Stopped (or started again) while the reap was in flight: that call owns the schedule now.
    if (!running || handle) return;
    handle = scheduler.schedule(tick, queue.config.reaperIntervalMs);
  };
  return {
    start() {
      if (running) return;
      running = true;
      handle = scheduler.schedule(tick, queue.config.reaperIntervalMs);
    },
    runOnce,
    stop() {
      running = false;
      handle?.cancel();
      handle = undefined;
    },
  };
}
