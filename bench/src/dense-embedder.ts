import type { EmbeddingProvider } from '@memory/core';

/**
 * A synthetic dense embedder for latency benchmarks: each word maps to a fixed pseudo-random
 * direction and a text is the normalized sum of its words' directions. Dense like real model
 * embeddings (sign bits are informative, distances spread out), similar for texts sharing words,
 * and fast enough to embed 100,000 texts in about a second. It has no semantics.
 */
export function createDenseEmbedder(dimensions = 384): EmbeddingProvider {
  const cache = new Map<string, Float32Array>();
  const direction = (word: string): Float32Array => {
    let v = cache.get(word);
    if (v) return v;
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619) >>> 0;
    v = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
      v[d] = h / 2 ** 32 - 0.5;
    }
    cache.set(word, v);
    return v;
  };
  return {
    model: `dense-synthetic-${dimensions}`,
    dimensions,
    async embed(texts) {
      return texts.map((text) => {
        const out = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const v = direction(word);
          for (let d = 0; d < dimensions; d++) out[d] = (out[d] ?? 0) + (v[d] ?? 0);
        }
        let norm = 0;
        for (const x of out) norm += x * x;
        const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        return out.map((x) => x * inv);
      });
    },
  };
}
