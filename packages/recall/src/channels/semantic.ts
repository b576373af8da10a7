import { countMemoryVectors, knnMemoryVectors, recentMemoryVectors, vectorIndexState } from '@memory/store';
import { type ChannelContext, cosineWithBlob } from './context.js';

/** `complete`: every vector of the agent was searched; `recent-window`: only the newest `searchedWindow`; `none`: no semantic search ran. */
export type VectorCompleteness = 'complete' | 'recent-window' | 'none';

export interface SemanticOutcome {
  readonly hits: Array<{ memoryId: string; cosine: number }>;
  readonly completeness: VectorCompleteness;
  readonly searchedWindow?: number;
}

/**
 * Nearest memories to the query vector. With sqlite-vec: a coarse vec0 KNN over sign bits inside
 * the agent's partition, rescored exactly (cosine) from the canonical vectors. Without it (or
 * before the mirror exists for this model): an exact cosine scan over the agent's newest
 * `vectorScanWindow` vectors, reported as `recent-window` when the agent has more.
 */
export function semanticChannel(
  ctx: ChannelContext,
  query: Float32Array,
  model: string,
  vectorAvailable: boolean,
  k: number,
): SemanticOutcome {
  const state = vectorAvailable ? vectorIndexState(ctx.sql) : undefined;
  if (state && state.model === model && state.dimensions === query.length) {
    const hits = knnMemoryVectors(ctx.sql, ctx.agentId, query, k).map((h) => ({
      memoryId: h.memoryId,
      cosine: cosineWithBlob(query, h.vector),
    }));
    return { hits: sortHits(hits), completeness: 'complete' };
  }
  const window = ctx.config.recall.vectorScanWindow;
  const rows = recentMemoryVectors(ctx.sql, ctx.agentId, model, window);
  const hits = sortHits(rows.map((r) => ({ memoryId: r.memoryId, cosine: cosineWithBlob(query, r.vector) }))).slice(
    0,
    k,
  );
  if (rows.length < window || countMemoryVectors(ctx.sql, ctx.agentId, model) <= window)
    return { hits, completeness: 'complete' };
  return { hits, completeness: 'recent-window', searchedWindow: window };
}

function sortHits(hits: Array<{ memoryId: string; cosine: number }>): Array<{ memoryId: string; cosine: number }> {
  return hits.sort((a, b) => b.cosine - a.cosine || (a.memoryId < b.memoryId ? -1 : 1));
}
