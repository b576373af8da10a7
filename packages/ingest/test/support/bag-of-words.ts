import { createHash } from 'node:crypto';
import type { EmbeddingProvider } from '@memory/core';

/** Similar texts get similar vectors (words hashed into buckets), as a real embedder's would. */
export function bagOfWords(dimensions = 256, model = 'bow'): EmbeddingProvider & { calls: number } {
  const embedder = {
    model,
    dimensions,
    calls: 0,
    async embed(texts: readonly string[]): Promise<Float32Array[]> {
      embedder.calls++;
      return texts.map((text) => {
        const v = new Float32Array(dimensions);
        for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
          const h = createHash('sha1').update(word).digest();
          const bucket = h.readUInt32LE(0) % dimensions;
          v[bucket] = (v[bucket] ?? 0) + ((h[4] ?? 0) % 2 === 0 ? 1 : -1);
        }
        const norm = Math.hypot(...v) || 1;
        return v.map((x) => x / norm);
      });
    },
  };
  return embedder;
}
