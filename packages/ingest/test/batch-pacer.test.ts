import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBatchPacer, nextBatchSize } from '../src/batch-pacer.js';

describe('rememberMany batch pacing', () => {
  const pace = { size: 100, max: 100, targetMs: 25 };

  it('shrinks after a long transaction in proportion to its time, and grows back by half at most', () => {
    // 100 memories in 77 ms: 32 fit in 25 ms.
    expect(nextBatchSize(pace, 100, 77)).toBe(32);
    expect(nextBatchSize({ ...pace, size: 32 }, 32, 5)).toBe(48);
    expect(nextBatchSize({ ...pace, size: 48 }, 48, 5)).toBe(72);
    expect(nextBatchSize({ ...pace, size: 72 }, 72, 5)).toBe(100);
    // Never past the configured size, never below one memory.
    expect(nextBatchSize(pace, 100, 1)).toBe(100);
    expect(nextBatchSize(pace, 1, 500)).toBe(1);
    // A zero-time transaction (a coarse clock) or an empty one changes nothing it should not.
    expect(nextBatchSize({ ...pace, size: 40 }, 40, 0)).toBe(60);
    expect(nextBatchSize({ ...pace, size: 40 }, 0, 30)).toBe(40);
  });

  it('stays within 1 and the configured size, and a transaction at the target keeps the size (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.double({ min: 0, max: 1000, noNaN: true }),
        (max, size, items, ms) => {
          const next = nextBatchSize({ size: Math.min(size, max), max, targetMs: 25 }, items, ms);
          expect(next).toBeGreaterThanOrEqual(1);
          expect(next).toBeLessThanOrEqual(max);
          expect(next).toBeLessThanOrEqual(Math.max(Math.min(size, max), Math.ceil(Math.min(size, max) * 1.5)));
          if (items > 0 && ms > 25) expect(next).toBeLessThanOrEqual(Math.max(1, items - 1));
        },
      ),
    );
    expect(nextBatchSize(pace, 100, 25)).toBe(100);
    expect(nextBatchSize({ ...pace, size: 50 }, 50, 25)).toBe(50);
  });

  it('starts at the configured size', () => {
    const pacer = createBatchPacer(100);
    expect(pacer.size).toBe(100);
    pacer.start();
    pacer.stop(0);
    expect(pacer.size).toBe(100);
  });
});
