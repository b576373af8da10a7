import { setImmediate } from 'node:timers/promises';

/**
 * Lets the host's event loop run (I/O, timers, other requests) between bounded batches of
 * synchronous work. Not a timer: it resumes on the next loop turn.
 */
export function yieldToEventLoop(): Promise<void> {
  return setImmediate();
}
