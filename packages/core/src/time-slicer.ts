import { performance } from 'node:perf_hooks';
import { yieldToEventLoop } from './yield.js';

/** The slice of synchronous work after which long loops let the event loop run. */
export const SLICE_BUDGET_MS = 10;

export interface TimeSlicer {
  /** True once the current slice has used its budget: the caller should `await yield()`. */
  due(): boolean;
  /** Lets the event loop run, then starts a new slice. */
  yield(): Promise<void>;
}

/**
 * Splits long synchronous work (validating, hashing, chunking, writing thousands of items) into
 * slices of about `budgetMs`, so one call never holds the host's event loop for long. Counting
 * items is not enough: one 64 KiB item costs as much as a thousand short ones, so the budget is
 * time. It reads the monotonic `performance.now()`, not the injected clock: it measures CPU spent
 * here, which a test's manual clock does not model.
 *
 * @example
 * ```ts
 * const slicer = createTimeSlicer();
 * for (const item of items) {
 *   if (slicer.due()) await slicer.yield();
 *   work(item);
 * }
 * ```
 */
export function createTimeSlicer(options: { budgetMs?: number } = {}): TimeSlicer {
  const budget = options.budgetMs ?? SLICE_BUDGET_MS;
  let start = performance.now();
  const due = (): boolean => performance.now() - start >= budget;
  const yieldNow = async (): Promise<void> => {
    await yieldToEventLoop();
    start = performance.now();
  };
  return { due, yield: yieldNow };
}
