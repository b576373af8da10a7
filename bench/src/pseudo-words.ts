// The PostgreSQL benches' corpus: seeded pseudo-words with a Zipf-like frequency, so every process
// and both dialects see the same texts.

/** A seeded generator of floats in [0, 1). */
export function mulberry(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tu', 'vas', 'qe', 'dor', 'pyl', 'zen', 'ush', 'bri', 'ost', 'ny', 'fal'];

/** The pseudo-word of a rank. */
export function word(rank: number): string {
  let s = '';
  let n = rank + 15;
  while (n > 0) {
    s += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return s;
}

/** A Zipf-like rank in [0, 5000). */
export function zipfRank(next: () => number): number {
  return Math.min(4999, Math.floor(Math.exp(next() * Math.log(5000)) - 1));
}
