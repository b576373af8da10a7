import { type EmbeddingProvider, MemoryError } from '@memory/core';
import { fnv1a, l2Normalize, wordTokens } from './text-features.js';

export interface HashingEmbedderOptions {
  /** Vector length. @default 384 */
  readonly dimensions?: number;
  /** Reported model name; change it when you change `dimensions` in a live database. @default `hashing-<dimensions>` */
  readonly model?: string;
}

/**
 * A deterministic embedder for tests and benchmarks (feature hashing): each lowercase word adds ±1
 * to one of `dimensions` buckets, and the vector is L2-normalized. Texts that share words have
 * positive cosine; disjoint texts are near-orthogonal. It knows no meaning — use
 * {@link createOfflineEmbedder} for that.
 */
export function createHashingEmbedder(options: HashingEmbedderOptions = {}): EmbeddingProvider {
  const dimensions = options.dimensions ?? 384;
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65_536) {
    throw new MemoryError('INVALID_CONFIG', 'hashing embedder dimensions must be an integer in 1..65536');
  }
  const model = options.model ?? `hashing-${dimensions}`;
  return {
    model,
    dimensions,
    // Calibrated like the offline embedder's (bench:conflict, dev split): word overlap is all it knows.
    conflictThreshold: 0.66,
    async embed(texts) {
      return texts.map((text) => {
        const vector = new Float32Array(dimensions);
        for (const word of wordTokens(text)) {
          const h = fnv1a(word);
          const bucket = h % dimensions;
          vector[bucket] = (vector[bucket] ?? 0) + ((fnv1a(word, h) & 1) === 0 ? 1 : -1);
        }
        return l2Normalize(vector, text);
      });
    },
  };
}
