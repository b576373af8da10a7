import type { EmbeddingProvider } from '@memory/core';
import { createSeededRandom } from '@memory/core';

/**
 * A dense embedder with the statistics of real sentence-embedding models, built from a smaller one:
 * each base vector is mapped through a fixed random Gaussian projection whose output dimensions
 * have unequal scales (real models have a few dominant dimensions), a shared offset is added (real
 * embeddings are anisotropic: unrelated texts have cosines around 0.2–0.4, so sign bits are
 * unbalanced), plus per-text noise, then normalized. Its neighbour structure is the base
 * embedder's, blurred by the noise: known, and as hard for an index as a real model's.
 */
export function createProjectedEmbedder(
  base: EmbeddingProvider,
  options: { dimensions?: number; noise?: number; offset?: number; seed?: number } = {},
): EmbeddingProvider {
  const dims = options.dimensions ?? 384;
  const noise = options.noise ?? 0.15;
  const offsetNorm = options.offset ?? 0.5;
  const rnd = createSeededRandom(options.seed ?? 11);
  const gauss = (): number => {
    const u = Math.max(rnd.float(), 1e-12);
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.float());
  };
  const inDims = base.dimensions;
  const projection = new Float32Array(dims * inDims);
  for (let o = 0; o < dims; o++) {
    // Scales fall from 3 to about 0.5 across the output dimensions.
    const scale = (3 * Math.exp((-1.8 * o) / dims)) / Math.sqrt(inDims);
    for (let i = 0; i < inDims; i++) projection[o * inDims + i] = gauss() * scale;
  }
  const offset = new Float32Array(dims);
  let norm = 0;
  for (let o = 0; o < dims; o++) {
    offset[o] = gauss();
    norm += (offset[o] as number) ** 2;
  }
  for (let o = 0; o < dims; o++) offset[o] = ((offset[o] as number) * offsetNorm) / Math.sqrt(norm);
  const textNoise = (text: string): Float32Array => {
    let h = 2166136261;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
    const out = new Float32Array(dims);
    for (let o = 0; o < dims; o++) {
      h = Math.imul(h ^ (h >>> 13), 0x5bd1e995) >>> 0;
      const u1 = (h + 1) / 2 ** 32;
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0;
      const u2 = h / 2 ** 32;
      out[o] = (Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2) * noise) / Math.sqrt(dims);
    }
    return out;
  };
  return {
    model: `projected-${base.model}-${dims}`,
    dimensions: dims,
    async embed(texts, options) {
      const vectors = await base.embed(texts, options);
      return vectors.map((v, t) => {
        const out = textNoise(texts[t] ?? '');
        for (let o = 0; o < dims; o++) {
          let sum = 0;
          const row = o * inDims;
          for (let i = 0; i < inDims; i++) sum += (projection[row + i] as number) * (v[i] ?? 0);
          out[o] = (out[o] as number) + sum + (offset[o] as number);
        }
        let n = 0;
        for (const x of out) n += x * x;
        const inv = n > 0 ? 1 / Math.sqrt(n) : 0;
        for (let o = 0; o < dims; o++) out[o] = (out[o] as number) * inv;
        return out;
      });
    },
  };
}
