import type { RandomSource } from '@memory/core';

/**
 * Delay before a failed job is eligible again: min(base · 2^(attempt − 1), max). `attempt` is the
 * attempt that just failed (1 for the first).
 */
export function retryDelay(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * Worker poll backoff after `failures` consecutive failures: min(1 s · 2^n, 30 s) plus up to 500 ms
 * of jitter from the injected random source (so workers that failed together do not retry together).
 */
export function pollBackoff(failures: number, random: RandomSource): number {
  return Math.min(1000 * 2 ** failures, 30_000) + Math.floor(random.float() * 500);
}
