import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBatchPacer, nextBatchSize } from '../src/batch-pacer.js';
import { threadCpuMs } from '../src/thread-cpu.js';

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

  it("times a transaction by the thread's CPU clock, not by other threads' CPU", () => {
    let now = 1000;
    const pacer = createBatchPacer(100, 25, () => now);
    pacer.start();
    now += 50; // 100 memories in 50 ms of this thread's CPU: 50 fit in 25 ms.
    pacer.stop(100);
    expect(pacer.size).toBe(50);
    pacer.start();
    // Other threads may burn the process's CPU meanwhile: only this thread's 10 ms count.
    now += 10;
    pacer.stop(50);
    expect(pacer.size).toBe(75);
  });

  it('falls back to wall and process time where the thread clock cannot be read', () => {
    const pacer = createBatchPacer(100, 25, () => undefined);
    pacer.start();
    pacer.stop(100);
    // An empty transaction takes well under 25 ms of either: the size stays.
    expect(pacer.size).toBe(100);
  });

  it('reads a thread clock that advances with work on this thread', () => {
    if (process.platform !== 'linux') return; // elsewhere the fallback above applies
    const before = threadCpuMs() as number;
    expect(before).toBeGreaterThan(0);
    let x = 0;
    for (let i = 0; i < 2_000_000; i++) x += Math.sqrt(i);
    const after = threadCpuMs() as number;
    expect(x).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before);
  });

  it('starts at the configured size', () => {
    const pacer = createBatchPacer(100);
    expect(pacer.size).toBe(100);
    pacer.start();
    pacer.stop(0);
    expect(pacer.size).toBe(100);
  });
});
