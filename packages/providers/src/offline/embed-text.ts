import { fnv1a, l2Normalize, wordTokens } from '../text-features.js';

// The per-text work of the offline embedder, shared by the main thread and the embedding worker so
// both give bit-identical vectors. It imports nothing but pure helpers: the worker loads it alone.

/** What embedding one text needs: the decoded vectors file, indexed by word. */
export interface EmbedModel {
  readonly dimensions: number;
  /** Norm of the hashed vector an unknown word gets. */
  readonly oovNorm: number;
  /** Directions projected out of every sentence vector, concatenated. */
  readonly components: Float32Array;
  readonly scales: Float32Array;
  readonly vectors: Int8Array;
  readonly index: ReadonlyMap<string, number>;
  readonly stopWords: ReadonlySet<string>;
}

/** The word's row, or the row of its stem before an apostrophe (`alice's` → `alice`). */
function lookup(m: EmbedModel, word: string): number | undefined {
  const direct = m.index.get(word);
  if (direct !== undefined) return direct;
  const apostrophe = word.search(/['’]/);
  return apostrophe > 0 ? m.index.get(word.slice(0, apostrophe)) : undefined;
}

/** A pseudo-random direction of norm `norm` derived from the word (deterministic). */
function addHashedVector(sum: Float32Array, word: string, norm: number): void {
  const scale = norm / Math.sqrt(sum.length);
  let h = fnv1a(word);
  for (let d = 0; d < sum.length; d++) {
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
    sum[d] = (sum[d] ?? 0) + ((h & 1) === 0 ? scale : -scale);
  }
}

/** The SIF sentence vector of one text: weighted word vectors summed, common directions removed, unit length. */
export function embedText(m: EmbedModel, text: string): Float32Array {
  const { dimensions, oovNorm, components, scales, vectors } = m;
  const sum = new Float32Array(dimensions);
  for (const word of wordTokens(text)) {
    if (m.stopWords.has(word)) continue;
    const i = lookup(m, word);
    if (i === undefined) {
      addHashedVector(sum, word, oovNorm);
      continue;
    }
    const scale = scales[i] ?? 0;
    const base = i * dimensions;
    for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) + (vectors[base + d] ?? 0) * scale;
  }
  // The fixed directions (SIF's common component, or the top principal components) are projected out.
  for (let c = 0; c < components.length; c += dimensions) {
    let dot = 0;
    for (let d = 0; d < dimensions; d++) dot += (sum[d] ?? 0) * (components[c + d] ?? 0);
    for (let d = 0; d < dimensions; d++) sum[d] = (sum[d] ?? 0) - dot * (components[c + d] ?? 0);
  }
  return l2Normalize(sum, text);
}

/** Word → row, first occurrence wins (the file is in frequency order). */
export function indexWords(words: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  words.forEach((word, i) => {
    if (!index.has(word)) index.set(word, i);
  });
  return index;
}
