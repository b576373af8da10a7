import { randomFillSync } from 'node:crypto';

/** A source of randomness, injected so tests are deterministic. */
export interface RandomSource {
  /** Fills `bytes` with random bytes. */
  fill(bytes: Uint8Array): void;
  /** A float in [0, 1). */
  float(): number;
}

/** Cryptographically strong randomness from node:crypto. */
export const cryptoRandom: RandomSource = Object.freeze({
  fill(bytes: Uint8Array) {
    randomFillSync(bytes);
  },
  float() {
    const b = new Uint32Array(1);
    randomFillSync(b);
    return (b[0] ?? 0) / 2 ** 32;
  },
});

/** A seeded pseudo-random source (mulberry32) for tests and benchmarks. Not for secrets. */
export function createSeededRandom(seed: number): RandomSource {
  let state = seed >>> 0;
  const nextU32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    fill(bytes) {
      for (let i = 0; i < bytes.length; i++) bytes[i] = nextU32() & 0xff;
    },
    float: () => nextU32() / 2 ** 32,
  };
}
