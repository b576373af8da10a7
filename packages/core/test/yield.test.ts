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
  it('resumes after due timers ran, even when called from an I/O callback', async () => {
    const order: string[] = [];
    await new Promise<void>((done, fail) => {
      // An I/O callback runs in the poll phase, which the check phase (immediates) follows at once.
      readFile(new URL(import.meta.url), () => {
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

  it('resumes after due timers ran when called from an immediate', async () => {
    const order: string[] = [];
    await new Promise<void>((done, fail) => {
      setImmediate(() => {
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
