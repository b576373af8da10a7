import type { MemoryConfig } from '@memory/core';
import {
  countMemoryVectors,
  knnLegacyMirror,
  legacyMirrorModel,
  liveMemoriesByVectorKeyProgram,
  type PortableStore,
  type Program,
  recentMemoryVectors,
  type SqlExecutor,
  type Store,
  searchMemoryVectorsInSlices,
} from '@memory/store';
import { sqliteStoreOf } from '../recall-context.js';
import { cosineWithBlob } from './context.js';

/**
 * Vectors an ivf search compares per synchronous read (about 10 ms of vec0 work); the event loop
 * runs between reads.
 */
const SLICE_ROWS = 20_000;

/**
 * How much of the agent's vectors the semantic channel searched. `exact`: the hits are the exact
 * nearest vectors (every vector compared); `approximate`: an index searched part of them (see
 * `vectorRecall`); `recent-window`: only the newest `searchedWindow` (no sqlite-vec); `partial`:
 * some live memories have no vector of the current embedder yet (an embedder change being
 * re-embedded, an outage being filled in; `vectorCoverage` has the counts), so the semantic channel
 * cannot find them; `none`: no semantic search ran.
 */
export type VectorCompleteness = 'exact' | 'approximate' | 'recent-window' | 'partial' | 'none';

/** Live memories of the scope with a vector of the current embedder, of all its live memories. */
export interface VectorCoverage {
  readonly embedded: number;
  readonly total: number;
}

/** How the semantic channel searched (shown with `explain: true`). */
export interface VectorSearchReport {
  /**
   * `exact`/`ivf`: the vector index's partition layout (SQLite), or on PostgreSQL `exact` for an
   * exact pgvector comparison; `hnsw`: pgvector's HNSW index (PostgreSQL); `legacy`: the sign-bit
   * mirror of earlier versions, while the index fills; `scan`: the fallback scan without sqlite-vec
   * or pgvector.
   */
  readonly layout: 'exact' | 'ivf' | 'hnsw' | 'legacy' | 'scan';
  /** The agent's vectors for this model. */
  readonly vectors: number;
  /** Vectors compared with the query (ivf: an estimate from list sizes). */
  readonly searched: number;
  /** Nearest vectors the channel asked for: the candidate pool handed to ranking. */
  readonly pool: number;
  /** ivf: lists probed and lists in all. */
  readonly probes?: number;
  readonly lists?: number;
  /** ivf: neighbour recall@10 measured when the partition was built, and over how many sample queries. */
  readonly estimatedRecall?: number;
  readonly recallQueries?: number;
  /**
   * ivf on SQLite: the probed lists were scanned in the engine's in-memory scan cache
   * (`vectors.scanCacheBytes`): int8 scores, the best `pool` vectors rescored with their exact cosine.
   */
  readonly scanCache?: { readonly pool: number };
}

export interface SemanticOutcome {
  readonly hits: Array<{ memoryId: string; cosine: number }>;
  readonly completeness: VectorCompleteness;
  readonly searchedWindow?: number;
  /** With `approximate`: the index's measured neighbour recall@10, when it has one. */
  readonly estimatedRecall?: number;
  readonly search?: VectorSearchReport;
  /** With an embedder: how many of the scope's live memories the semantic channel can find. */
  readonly coverage?: VectorCoverage;
}

/**
 * The scope's live memories with a vector under `model` (the current embedder's key) and in all,
 * from the maintained per-scope counts (a few rows). Vectors of other keys are never compared with
 * the query: they come from another model's space.
 */
export function* vectorCoverage(agentId: string, model: string): Program<VectorCoverage> {
  let embedded = 0;
  let total = 0;
  for (const { key, n } of yield* liveMemoriesByVectorKeyProgram(agentId)) {
    total += n;
    if (key === model) embedded += n;
  }
  return { embedded, total };
}

/**
 * Nearest memories to the query vector, on the store's dialect: SQLite's vector index (below), or
 * on PostgreSQL `searchPostgresVectors` (pgvector exact or HNSW, or without pgvector an exact scan
 * of the newest `vectorScanWindow` vectors, reported as `recent-window` when the agent has more).
 */
export async function semanticChannel(
  store: PortableStore,
  scope: { agentId: string; config: MemoryConfig },
  query: Float32Array,
  model: string,
  k: number,
): Promise<SemanticOutcome> {
  const sqlite = sqliteStoreOf(store);
  if (sqlite) return sqliteSemantic(sqlite, scope, query, model, k);
  return postgresSemantic(store, scope, query, model, k);
}

/** Whether the store uses pgvector (a `PostgresStore`'s `vector`). */
function pgvectorOf(store: PortableStore): boolean {
  const vector = (store as PortableStore & { readonly vector?: { readonly available?: unknown } }).vector;
  return vector?.available === true;
}

async function postgresSemantic(
  store: PortableStore,
  scope: { agentId: string; config: MemoryConfig },
  query: Float32Array,
  model: string,
  k: number,
): Promise<SemanticOutcome> {
  // Loaded on PostgreSQL only: `@memory/store/postgres` loads `pg`, an optional peer dependency that
  // a SQLite host does not have.
  const { searchPostgresVectors } = await import('@memory/store/postgres');
  const window = scope.config.recall.vectorScanWindow;
  const found = await store.db.read(() =>
    searchPostgresVectors({ agentId: scope.agentId, model, query, k, pgvector: pgvectorOf(store), scanWindow: window }),
  );
  return {
    hits: found.hits,
    completeness: found.completeness,
    ...(found.completeness === 'recent-window' ? { searchedWindow: window } : {}),
    search: { layout: found.layout, vectors: found.vectors, searched: found.searched, pool: k },
  };
}

/**
 * Nearest memories to the query vector on SQLite. With sqlite-vec: the model's vector index (an exact list
 * per agent while the agent is small, ivf lists probed by nearest centroid above that, read in
 * slices with the event loop free between them), or, while a new index is still filling, the
 * legacy sign-bit mirror rescored exactly. Without sqlite-vec: an exact cosine scan over the
 * agent's newest `vectorScanWindow` vectors, reported as `recent-window` when the agent has more.
 */
async function sqliteSemantic(
  store: Store,
  scope: { agentId: string; config: MemoryConfig },
  query: Float32Array,
  model: string,
  k: number,
): Promise<SemanticOutcome> {
  const { agentId } = scope;
  if (store.vector.available) {
    const found = await searchMemoryVectorsInSlices(store, {
      agentId,
      model,
      query,
      k,
      sliceRows: SLICE_ROWS,
      scanCache: { bytes: scope.config.vectors.scanCacheBytes },
    });
    if (found) {
      const { hits, completeness, ...search } = found;
      return {
        hits,
        completeness,
        ...(found.estimatedRecall !== undefined ? { estimatedRecall: found.estimatedRecall } : {}),
        search: { ...search, pool: k },
      };
    }
    const legacy = store.read((sql) => legacySearch(sql, agentId, query, model, k));
    if (legacy) return legacy;
  }
  return store.read((sql) => scanNewest(sql, scope, query, model, k));
}

/** The legacy sign-bit mirror of this model (while a new index fills), rescored exactly. */
function legacySearch(
  sql: SqlExecutor,
  agentId: string,
  query: Float32Array,
  model: string,
  k: number,
): SemanticOutcome | undefined {
  if (legacyMirrorModel(sql, query.length) !== model) return undefined;
  const rows = knnLegacyMirror(sql, agentId, query, k);
  const vectors = countMemoryVectors(sql, agentId, model);
  const hits = sortHits(rows.map((r) => ({ memoryId: r.memoryId, cosine: cosineWithBlob(query, r.vector) })));
  return {
    hits,
    completeness: rows.length >= vectors ? 'exact' : 'approximate',
    search: { layout: 'legacy', vectors, searched: rows.length, pool: k },
  };
}

/** The fallback without sqlite-vec: an exact scan of the agent's newest vectors. */
function scanNewest(
  sql: SqlExecutor,
  scope: { agentId: string; config: MemoryConfig },
  query: Float32Array,
  model: string,
  k: number,
): SemanticOutcome {
  const window = scope.config.recall.vectorScanWindow;
  const rows = recentMemoryVectors(sql, scope.agentId, model, window);
  const hits = sortHits(rows.map((r) => ({ memoryId: r.memoryId, cosine: cosineWithBlob(query, r.vector) }))).slice(
    0,
    k,
  );
  const vectors = rows.length < window ? rows.length : countMemoryVectors(sql, scope.agentId, model);
  const search: VectorSearchReport = { layout: 'scan', vectors, searched: rows.length, pool: k };
  if (vectors <= rows.length) return { hits, completeness: 'exact', search };
  return { hits, completeness: 'recent-window', searchedWindow: window, search };
}

function sortHits(hits: Array<{ memoryId: string; cosine: number }>): Array<{ memoryId: string; cosine: number }> {
  return hits.sort((a, b) => b.cosine - a.cosine || (a.memoryId < b.memoryId ? -1 : 1));
}
