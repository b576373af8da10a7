import { randomFillSync } from 'node:crypto';

/** A source of randomness, injected so tests are deterministic. */
export interface RandomSource {
  /** Fills `bytes` with random bytes. */
  fill(bytes: Uint8Array): void;
  /** A float in [0, 1). */
  float(): number;
}

/**
 * Cryptographically strong randomness from node:crypto. Bytes are drawn from a pool refilled 8 KiB at
 * a time: one randomFillSync call per id costs about 8 µs, which dominated bulk writes.
 */
export function createCryptoRandom(poolSize = 8192): RandomSource {
  const pool = new Uint8Array(poolSize);
  let offset = poolSize;
  const take = (bytes: Uint8Array): void => {
    if (bytes.length > poolSize) {
      randomFillSync(bytes);
      return;
    }
    if (offset + bytes.length > poolSize) {
      randomFillSync(pool);
      offset = 0;
    }
    bytes.set(pool.subarray(offset, offset + bytes.length));
    offset += bytes.length;
  };
  return {
    fill: take,
    float() {
      const b = new Uint8Array(4);
      take(b);
      return new DataView(b.buffer).getUint32(0) / 2 ** 32;
    },
  };
}

/** The default random source: {@link createCryptoRandom} with its default pool. */
export const cryptoRandom: RandomSource = Object.freeze(createCryptoRandom());

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
