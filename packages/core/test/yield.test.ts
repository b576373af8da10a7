import { readFile } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { yieldToEventLoop } from '../src/yield.js';

/** Holds the thread for `ms` (so a timer set before is due when the loop next looks). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('yieldToEventLoop', () => {
  // An I/O callback runs in the poll phase, which the check phase (immediates) follows at once; an
  // immediate runs in the check phase itself.
  it.each([
    ['an I/O callback', (run: () => void) => readFile(new URL(import.meta.url), run)],
    ['an immediate', (run: () => void) => setImmediate(run)],
  ])('resumes after due timers ran when called from %s', async (_from, schedule) => {
    const order: string[] = [];
    await new Promise<void>((done, fail) => {
      schedule(() => {
        setTimeout(() => order.push('timer'), 0);
        busy(5);
        yieldToEventLoop().then(() => {
          order.push('resumed');
          done();
        }, fail);
      });
    });
    expect(order).toEqual(['timer', 'resumed']);
  });
});
