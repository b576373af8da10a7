// The vectors a recall benchmark stores, computed once: every text embedded into one matrix (rows in
// text order), so the bench can compute exact neighbours, and an embedder for the engine that replays
// those rows for stored texts (the load measures the engine, not the embedder) and embeds anything
// else — queries — with the real one.
import type { EmbeddingProvider } from '@memory/core';

/** Texts, their unit vectors (row i is text i) and the embedder that produced them. */
export interface VectorFixture {
  readonly embedder: EmbeddingProvider;
  readonly texts: readonly string[];
  readonly dims: number;
  readonly matrix: Float32Array;
}

/** Embeds `texts` (distinct) in batches into one matrix. */
export async function embedFixture<T extends { readonly length: number; slice(start: number, end: number): string[] }>(
  embedder: EmbeddingProvider,
  texts: T,
): Promise<Omit<VectorFixture, 'texts'> & { readonly texts: T }> {
  const dims = embedder.dimensions;
  const matrix = new Float32Array(texts.length * dims);
  for (let start = 0; start < texts.length; start += 2000) {
    const vectors = await embedder.embed(texts.slice(start, start + 2000), { purpose: 'index' });
    vectors.forEach((v, i) => {
      matrix.set(unit(Float32Array.from(v)), (start + i) * dims);
    });
  }
  return { embedder, texts, dims, matrix };
}

function unit(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
  for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) * inv;
  return v;
}

/** An embedder returning the fixture's rows for its texts, and the real embedder's vectors otherwise. */
export function replayEmbedder(fixture: VectorFixture): EmbeddingProvider {
  const rowOf = new Map<string, number>();
  fixture.texts.forEach((t, i) => {
    rowOf.set(t, i);
  });
  return replaying(fixture, () => rowOf);
}

/** An embedder answering texts found in `rows()` from the fixture's matrix, others from its embedder. */
function replaying(fixture: Omit<VectorFixture, 'texts'>, rows: () => ReadonlyMap<string, number>): EmbeddingProvider {
  const { embedder, dims, matrix } = fixture;
  return {
    model: embedder.model,
    dimensions: dims,
    async embed(texts, options) {
      const rowOf = rows();
      const unknown = texts.filter((t) => !rowOf.has(t));
      const fresh = unknown.length > 0 ? await embedder.embed(unknown, options) : [];
      let next = 0;
      return texts.map((t) => {
        const row = rowOf.get(t);
        if (row === undefined) return fresh[next++] as Float32Array;
        return matrix.slice(row * dims, row * dims + dims);
      });
    },
  };
}

/**
 * A replay embedder that holds no map of every text: before each call the bench says which texts it
 * writes and their rows (`expect`), and only those are looked up (a map of one call's texts,
 * replaced at the next call). Other texts (queries, a call not announced) go to the real embedder.
 * For loads of a million memories, where a map of every text keeps a million strings on the heap.
 */
export function callReplayEmbedder(
  fixture: Omit<VectorFixture, 'texts'>,
): EmbeddingProvider & { expect(texts: readonly string[], rows: readonly number[]): void } {
  let rowOf = new Map<string, number>();
  return {
    ...replaying(fixture, () => rowOf),
    expect(texts, rows) {
      rowOf = new Map();
      texts.forEach((t, i) => {
        rowOf.set(t, rows[i] as number);
      });
    },
  };
}
