import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers';
import { yieldToEventLoop } from '@memory/core';

/** Milliseconds of engine calls without a turn of the event loop before a call lets it turn (the time slicers' budget). */
export const TURN_BUDGET_MS = 10;

/**
 * Keeps the host's event loop turning while it awaits engine calls back to back. A call whose
 * providers answer at once (the offline embedder, a cached LLM) resolves through microtasks alone,
 * so `for (…) await engine.remember(…)` never reached the event loop: the host's timers and I/O
 * waited for the whole loop, and so did the WAL checkpoint worker's replies, which the writer reads
 * on a turn. Unanswered, they asked for no further checkpoint, and the WAL grew until the writer's
 * own checkpoint copied 64,000 frames inside a COMMIT on the event loop (90–360 ms). A turn is
 * noticed by a marker queued on the loop; a call that finds the marker still waiting after
 * `budgetMs` lets the loop turn first. Hosts whose calls reach the loop anyway (a remote embedder,
 * their own I/O) see no wait.
 */
export interface LoopTurns {
  /** Undefined, or a turn of the event loop the call awaits before its work. */
  due(): Promise<void> | undefined;
  /**
   * Resolves once the calls waiting for a turn have started their work: `close()` waits for it, so
   * a call the engine accepted before `close()` runs as it did when nothing waited.
   */
  settled(): Promise<void>;
}

/**
 * Reads the monotonic `performance.now()`, not the injected clock: it measures time the event loop
 * was held, which a test's manual clock does not model. The marker is Node's own `setImmediate`
 * (not the global a test may fake). Under a test's fake timers `performance.now()` may stand still;
 * then no call ever waits, as before.
 */
export function createLoopTurns(budgetMs = TURN_BUDGET_MS): LoopTurns {
  // When the marker was queued; undefined once a turn of the loop ran it.
  let armedAt: number | undefined;
  const turned = (): void => {
    armedAt = undefined;
  };
  // The turn the waiting calls share; undefined when none waits.
  let waiting: Promise<void> | undefined;
  return {
    due() {
      const now = performance.now();
      if (armedAt === undefined) {
        armedAt = now;
        setImmediate(turned);
        return undefined;
      }
      if (now - armedAt < budgetMs) return undefined;
      waiting ??= yieldToEventLoop().finally(() => {
        waiting = undefined;
      });
      return waiting;
    },
    settled: () => waiting ?? Promise.resolve(),
  };
}
