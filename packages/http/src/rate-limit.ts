import type { Clock } from '@memory/engine';

/** Fixed-window request counting per key (a token id). */
export interface RateLimiter {
  /** Counts one request; returns how long to wait (ms) when the window's allowance is used up, else 0. */
  take(key: string): number;
}

/**
 * A fixed window per key: at most `requests` in each `windowMs`, counted from the key's first
 * request in the window. Keys are verified token ids, so the map is as large as the set of tokens
 * in use; a key whose window has ended is dropped when it is next seen.
 */
export function createRateLimiter(options: { requests: number; windowMs: number; clock: Clock }): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    take(key) {
      const now = options.clock.now();
      let window = windows.get(key);
      if (!window || now - window.start >= options.windowMs) {
        window = { start: now, count: 0 };
        windows.set(key, window);
      }
      if (window.count >= options.requests) return window.start + options.windowMs - now;
      window.count++;
      return 0;
    },
  };
}
