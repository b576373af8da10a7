import { type Logger, type ScheduledHandle, type Scheduler, silentLogger } from '@memory/core';
import type { ReapResult } from './operations/reap.js';
import type { Queue } from './queue.js';

export interface Reaper {
  start(): void;
  /** Reaps now. */
  runOnce(): ReapResult;
  stop(): void;
}

/** Runs `reapExpiredLeases` every `config.queue.reaperIntervalMs` through the scheduler. */
export function createReaper(options: { queue: Queue; scheduler: Scheduler; logger?: Logger }): Reaper {
  const { queue, scheduler } = options;
  const logger = options.logger ?? silentLogger;
  let handle: ScheduledHandle | undefined;
  let running = false;
  const runOnce = (): ReapResult => {
    const result = queue.reapExpiredLeases();
    if (result.requeued > 0 || result.dead > 0) logger.info('reaped expired leases', { ...result });
    return result;
  };
  const tick = (): void => {
    handle = undefined;
    if (!running) return;
    try {
      runOnce();
    } catch (error) {
      logger.warn('reaper failed', { error: error instanceof Error ? error.message : String(error) });
    }
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
