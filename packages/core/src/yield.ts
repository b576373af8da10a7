import { setImmediate } from 'node:timers/promises';

/**
 * Lets the host's event loop run (I/O, timers, other requests) between bounded batches of
 * synchronous work. Not a timer: it resumes on a later loop turn, after the loop's timers phase.
 * One `setImmediate` is not enough for that: called from an I/O callback (a worker's reply, a
 * socket), its immediate runs in the same turn's check phase, right after the poll phase, so two
 * batches ran back to back with no timer between them (a bulk load's transaction resumed by a WAL
 * checkpoint's reply, then the next one: 118–167 ms without a timer at 200k memories). The second
 * immediate is queued from the check phase and so runs on the next turn, after its timers.
 */
export async function yieldToEventLoop(): Promise<void> {
  await setImmediate();
  await setImmediate();
}
