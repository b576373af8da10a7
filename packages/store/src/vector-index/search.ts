import { yieldToEventLoop } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Store } from '../open-store.js';
import { blobToVector } from '../repositories/embeddings.js';
import { noteIvfQuery } from './audits.js';
import { FRESH_LIST } from './cells.js';
import { cachedCentroids, cachedListSizes } from './centroids.js';
import { memoryIdsOfSeqs, memoryVectorsOfSeqs } from './embedding-reads.js';
import { findVectorIndex } from './indexes.js';
import { nearestLists } from './kmeans.js';
import { NearestHits, type SeqHit } from './nearest-hits.js';
import { findPartition } from './partitions.js';
import { type ScanCacheOptions, type ScanEntry, type ScanPartition, scanCacheOf } from './scan-cache.js';
import { knnInCells, knnInGeneration } from './vec-rows.js';

/** What a search of the vector index found and how much of the partition it compared. */
export interface VectorSearch {
  /** Nearest memories first, with their cosine similarity to the query. */
  readonly hits: Array<{ memoryId: string; cosine: number }>;
  /** `exact`: every vector of the agent was compared; `approximate`: the nearest lists only. */
  readonly completeness: 'exact' | 'approximate';
  readonly layout: 'exact' | 'ivf';
  /** The agent's vectors in the index. */
  readonly vectors: number;
  /** Vectors compared with the query (for ivf, from the list sizes as built; an estimate). */
  readonly searched: number;
  /** ivf: lists probed, of how many, plus the fresh list. */
  readonly probes?: number;
  readonly lists?: number;
  /** ivf: neighbour recall@10 the partition's build or audits measured at `probes`, and over how many queries. */
  readonly estimatedRecall?: number;
  readonly recallQueries?: number;
  /**
   * ivf: the probed lists were scanned in the store's in-memory scan cache (int8 scores, the best
   * `pool` rescored exactly from the stored vectors) instead of by vec0; the fresh list by vec0.
   */
  readonly scanCache?: { readonly pool: number };
}

/** Lists `first..last` (cells of one generation), searched by one KNN. */
interface ListRun {
  readonly first: number;
  readonly last: number;
  readonly rows: number;
}

/**
 * The probed lists (and the fresh list) as runs of consecutive list numbers, grouped into slices of
 * about `sliceRows` vectors. A build numbers the lists of a coarse group consecutively, so a
 * query's nearest lists often neighbour each other: one KNN per run saves a call's fixed cost.
 * Runs come in the order of `rankOf` (the best rank among their lists; by default the list number):
 * a search that reads the nearest lists first has a tight distance bound for the rest.
 */
export function listRuns(
  lists: readonly number[],
  sizeOf: (list: number) => number,
  sliceRows: number,
  rankOf: (list: number) => number = (list) => list,
): ListRun[][] {
  const sorted = [...lists].sort((a, b) => a - b);
  const runs: Array<{ first: number; last: number; rows: number; rank: number }> = [];
  for (const list of sorted) {
    const run = runs[runs.length - 1];
    // A run stays within one slice's rows (a slice is one synchronous read).
    if (run && list === run.last + 1 && run.rows + sizeOf(list) <= sliceRows) {
      run.last = list;
      run.rows += sizeOf(list);
      run.rank = Math.min(run.rank, rankOf(list));
    } else if (!run || list !== run.last)
      runs.push({ first: list, last: list, rows: sizeOf(list), rank: rankOf(list) });
  }
  runs.sort((a, b) => a.rank - b.rank || a.first - b.first);
  const slices: ListRun[][] = [];
  let rows = 0;
  for (const { first, last, rows: runRows } of runs) {
    const run = { first, last, rows: runRows };
    const slice = slices[slices.length - 1];
    if (slice && rows + run.rows <= sliceRows) {
      slice.push(run);
      rows += run.rows;
    } else {
      slices.push([run]);
      rows = run.rows;
    }
  }
  return slices;
}

/** Which lists a search reads, in slices of about `sliceRows` vectors, and what it reports. */
interface SearchPlan {
  readonly table: string;
  readonly agentId: string;
  readonly generation: number;
  readonly query: Float32Array;
  readonly k: number;
  /**
   * Runs of consecutive lists per slice, each searched by one KNN (FRESH_LIST is the fresh list;
   * undefined = every list of the generation).
   */
  readonly slices: ReadonlyArray<ReadonlyArray<ListRun | undefined>>;
  readonly report: Omit<VectorSearch, 'hits'>;
  /** ivf: the partition and its probed lists (0-based), for the scan cache. */
  readonly ivf?: { readonly partition: ScanPartition; readonly probed: Int32Array };
}

function plan(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  query: Float32Array,
  k: number,
  sliceRows: number,
): SearchPlan | 'none' | undefined {
  const index = findVectorIndex(sql, model, query.length);
  if (index?.status !== 'ready') return undefined;
  const partition = findPartition(sql, index.id, agentId);
  if (!partition) return 'none';
  const { generation } = partition;
  const base = { table: index.tableName, agentId, generation, query, k };
  const stored =
    partition.layout === 'ivf'
      ? cachedCentroids(sql, { indexId: index.id, agentId, generation }, index.dimensions)
      : undefined;
  if (!stored) {
    // An exact partition has one list; an ivf one whose centroids are missing is searched whole.
    return {
      ...base,
      slices: [
        [partition.layout === 'exact' ? { first: FRESH_LIST, last: FRESH_LIST, rows: partition.vectors } : undefined],
      ],
      report: { completeness: 'exact', layout: 'exact', vectors: partition.vectors, searched: partition.vectors },
    };
  }
  noteIvfQuery(sql, partition, query);
  const probed = nearestLists(stored, query, partition.probes);
  const sizes = cachedListSizes(sql, { indexId: index.id, agentId, generation, drainedSeq: partition.drainedSeq });
  let assigned = 0;
  for (const size of sizes) assigned += size;
  const fresh = Math.max(0, partition.vectors - assigned);
  let searched = fresh;
  for (const list of probed) searched += sizes[list] ?? 0;
  // Cells number the lists from 1 (0 is the fresh list). Nearest lists first, the fresh list last:
  // the nearest lists hold most of the k nearest, so the bound they set skips most of the rest.
  const rank = new Map<number, number>();
  probed.forEach((list, i) => {
    rank.set(list + 1, i);
  });
  const slices = listRuns(
    [FRESH_LIST, ...Array.from(probed, (list) => list + 1)],
    (cell) => (cell === FRESH_LIST ? fresh : (sizes[cell - 1] ?? 0)),
    sliceRows,
    (cell) => rank.get(cell) ?? probed.length,
  );
  return {
    ...base,
    slices,
    ivf: {
      partition: {
        indexId: index.id,
        agentId,
        model,
        table: index.tableName,
        dimensions: index.dimensions,
        generation,
        drainedSeq: partition.drainedSeq,
        vectors: partition.vectors,
        sizes,
      },
      probed,
    },
    report: {
      completeness: 'approximate',
      layout: 'ivf',
      vectors: partition.vectors,
      searched: Math.min(searched, partition.vectors),
      probes: probed.length,
      lists: partition.lists,
      ...(partition.estimatedRecall !== null ? { estimatedRecall: partition.estimatedRecall } : {}),
      recallQueries: partition.recallQueries,
    },
  };
}

/** How a search reads its runs; `bounded: false` asks every KNN for `k` (the A/B baseline of benchmarks). */
export interface SearchOptions {
  readonly bounded?: boolean;
}

function searchSlice(
  sql: SqlExecutor,
  p: SearchPlan,
  runs: ReadonlyArray<ListRun | undefined>,
  nearest: NearestHits,
  options: SearchOptions,
): void {
  for (const run of runs) {
    const bound = options.bounded === false ? undefined : nearest.bound();
    nearest.add(
      run
        ? knnInCells(sql, p.table, p.agentId, p.generation, run, p.query, p.k, bound)
        : knnInGeneration(sql, p.table, p.agentId, p.generation, p.query, p.k),
    );
  }
}

/**
 * The `k` nearest memory vectors of one agent through the model's vector index, or undefined when
 * the index does not exist or is still filling (the caller falls back). An exact partition is one
 * vec0 list searched whole; an ivf partition ranks its list centroids, searches the `probes` nearest
 * lists (nearest first) and the fresh list, and merges; once `k` hits are held, each further KNN
 * only asks for vectors within the k-th distance, which returns the same hits for less work. vec0
 * compares float32 vectors exactly, so no rescoring pass is needed. The agent is a partition key of every KNN: another scope's vectors are never read.
 */
export function searchMemoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  query: Float32Array,
  k: number,
  options: SearchOptions = {},
): VectorSearch | undefined {
  const p = plan(sql, agentId, model, query, k, Number.POSITIVE_INFINITY);
  if (p === undefined) return undefined;
  if (p === 'none') return { hits: [], completeness: 'exact', layout: 'exact', vectors: 0, searched: 0 };
  const nearest = new NearestHits(k);
  for (const runs of p.slices) searchSlice(sql, p, runs, nearest, options);
  return { hits: withMemoryIds(sql, agentId, nearest.hits()), ...p.report };
}

/**
 * {@link searchMemoryVectors} in slices: the lists to probe are read in groups of about
 * `sliceRows` vectors, each in its own short read, with the event loop free between them (a million
 * vectors in one ivf partition compare ~70k per query: one synchronous call would hold the loop
 * for tens of milliseconds). Slices may see different snapshots; a vector seen twice counts once.
 */
export async function searchMemoryVectorsInSlices(
  store: Store,
  request: {
    agentId: string;
    model: string;
    query: Float32Array;
    k: number;
    sliceRows: number;
    /** Scan large ivf partitions in the store's scan cache once it holds them (off when absent). */
    scanCache?: ScanCacheOptions;
  },
): Promise<VectorSearch | undefined> {
  const { agentId, model, query, k, sliceRows } = request;
  const p = store.read((sql) => plan(sql, agentId, model, query, k, sliceRows));
  if (p === undefined) return undefined;
  if (p === 'none') return { hits: [], completeness: 'exact', layout: 'exact', vectors: 0, searched: 0 };
  const entry = p.ivf && request.scanCache ? scanCacheOf(store).use(p.ivf.partition, request.scanCache) : undefined;
  if (entry && p.ivf) return searchScanCache(store, p, p.ivf.probed, entry);
  const nearest = new NearestHits(k);
  for (const [i, runs] of p.slices.entries()) {
    if (i > 0) await yieldToEventLoop();
    store.read((sql) => searchSlice(sql, p, runs, nearest, {}));
  }
  return { hits: store.read((sql) => withMemoryIds(sql, agentId, nearest.hits())), ...p.report };
}

/** Candidates the int8 scan hands to the exact rescore: four per hit asked for, at least 64. */
export function scanPool(k: number): number {
  return Math.max(4 * k, 64);
}

/**
 * The ivf search through a ready scan-cache entry: the probed lists' int8 scores in one kernel pass
 * (about 50k vectors at 1M, a few milliseconds), the best {@link scanPool} rescored with the exact
 * cosine of their stored vectors (a vector deleted since the fill is not found, so it never comes
 * back), then the fresh list by vec0 within the k-th distance.
 */
function searchScanCache(store: Store, p: SearchPlan, probed: Int32Array, entry: ScanEntry): VectorSearch {
  const pool = scanPool(p.k);
  const seqs = entry.candidates(probed, p.query, pool);
  return store.read((sql) => {
    const found = memoryVectorsOfSeqs(sql, p.agentId, entry.partition.model, seqs);
    // Mostly deleted candidates: the entry holds too many vectors that are gone; refill it.
    if (found.length < seqs.length * 0.75) scanCacheOf(store).drop(entry);
    const nearest = new NearestHits(p.k);
    nearest.add(found.map((row) => ({ seq: row.seq, distance: cosineDistance(p.query, blobToVector(row.vector)) })));
    nearest.add(
      knnInCells(
        sql,
        p.table,
        p.agentId,
        p.generation,
        { first: FRESH_LIST, last: FRESH_LIST },
        p.query,
        p.k,
        nearest.bound(),
      ),
    );
    return { hits: withMemoryIds(sql, p.agentId, nearest.hits()), ...p.report, scanCache: { pool } };
  });
}

/**
 * 1 − cosine as vec0 computes it (float32 sums in dimension order, the rest in double, rounded to
 * float32: sqlite-vec's scalar `distance_cosine_float`), so a rescored hit has the distance the vec0
 * path reports for it and ties are broken the same way (by seq).
 */
function cosineDistance(a: Float32Array, b: Float32Array): number {
  const f = Math.fround;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot = f(dot + f(x * y));
    na = f(na + f(x * x));
    nb = f(nb + f(y * y));
  }
  if (na === 0 || nb === 0) return 1;
  return f(1 - dot / (Math.sqrt(na) * Math.sqrt(nb)));
}

function withMemoryIds(
  sql: SqlExecutor,
  agentId: string,
  top: readonly SeqHit[],
): Array<{ memoryId: string; cosine: number }> {
  const ids = new Map(
    memoryIdsOfSeqs(
      sql,
      agentId,
      top.map((h) => h.seq),
    ).map((r) => [r.seq, r.memoryId]),
  );
  const hits: Array<{ memoryId: string; cosine: number }> = [];
  for (const h of top) {
    const memoryId = ids.get(h.seq);
    if (memoryId !== undefined) hits.push({ memoryId, cosine: 1 - h.distance });
  }
  return hits;
}
