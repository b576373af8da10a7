/** Wall-clock time in epoch milliseconds. Injected everywhere; domain code never reads `Date.now()`. */
export interface Clock {
  now(): number;
}

/** The real clock. */
export const systemClock: Clock = Object.freeze({ now: () => Date.now() });

/** A clock tests move by hand. */
export interface ManualClock extends Clock {
  /** Moves time forward by `ms` (must be ≥ 0). */
  advance(ms: number): void;
  /** Sets the time; moving backwards is allowed, for tests of clock skew. */
  set(ms: number): void;
}

/** @example `const clock = createManualClock(Date.UTC(2026, 0, 1)); clock.advance(1000);` */
export function createManualClock(start = 0): ManualClock {
  let current = start;
  return {
    now: () => current,
    advance(ms) {
      if (!(ms >= 0)) throw new RangeError(`advance(ms) needs ms >= 0, got ${ms}`);
      current += ms;
    },
    set(ms) {
      current = ms;
    },
  };
}
