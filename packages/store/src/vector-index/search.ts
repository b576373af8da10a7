import type { SqlExecutor } from '../internal/sql.js';
import { noteIvfQuery } from './audits.js';
import { FRESH_LIST } from './cells.js';
import { cachedCentroids, cachedListSizes } from './centroids.js';
import { memoryIdsOfSeqs } from './embedding-reads.js';
import { findVectorIndex } from './indexes.js';
import { nearestLists } from './kmeans.js';
import { findPartition } from './partitions.js';
import { knnInCell, knnInGeneration } from './vec-rows.js';

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
  /** ivf: neighbour recall@10 the partition's build measured at `probes`, and over how many queries. */
  readonly estimatedRecall?: number;
  readonly recallQueries?: number;
}

/**
 * The `k` nearest memory vectors of one agent through the model's vector index, or undefined when
 * the index does not exist or is still filling (the caller falls back). An exact partition is one
 * vec0 list searched whole; an ivf partition ranks its list centroids, searches the `probes` nearest
 * lists and the fresh list, and merges. vec0 compares float32 vectors exactly, so no rescoring pass
 * is needed. The agent is a partition key of every KNN: another scope's vectors are never read.
 */
export function searchMemoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  query: Float32Array,
  k: number,
): VectorSearch | undefined {
  const index = findVectorIndex(sql, model, query.length);
  if (index?.status !== 'ready') return undefined;
  const partition = findPartition(sql, index.id, agentId);
  if (!partition) return { hits: [], completeness: 'exact', layout: 'exact', vectors: 0, searched: 0 };
  const { generation } = partition;
  const stored =
    partition.layout === 'ivf'
      ? cachedCentroids(sql, { indexId: index.id, agentId, generation }, index.dimensions)
      : undefined;
  if (!stored) {
    // An exact partition has one list; an ivf one whose centroids are missing is searched whole.
    const found =
      partition.layout === 'exact'
        ? knnInCell(sql, index.tableName, agentId, generation, FRESH_LIST, query, k)
        : knnInGeneration(sql, index.tableName, agentId, generation, query, k);
    return {
      hits: withMemoryIds(sql, agentId, found, k),
      completeness: 'exact',
      layout: 'exact',
      vectors: partition.vectors,
      searched: partition.vectors,
    };
  }
  noteIvfQuery(sql, partition, query);
  const probed = nearestLists(stored, query, partition.probes);
  const found = knnInCell(sql, index.tableName, agentId, generation, FRESH_LIST, query, k);
  const sizes = cachedListSizes(sql, { indexId: index.id, agentId, generation, drainedSeq: partition.drainedSeq });
  let assigned = 0;
  for (const size of sizes) assigned += size;
  let searched = Math.max(0, partition.vectors - assigned);
  for (const list of probed) {
    searched += sizes[list] ?? 0;
    for (const hit of knnInCell(sql, index.tableName, agentId, generation, list + 1, query, k)) found.push(hit);
  }
  return {
    hits: withMemoryIds(sql, agentId, found, k),
    completeness: 'approximate',
    layout: 'ivf',
    vectors: partition.vectors,
    searched: Math.min(searched, partition.vectors),
    probes: probed.length,
    lists: partition.lists,
    ...(partition.estimatedRecall !== null ? { estimatedRecall: partition.estimatedRecall } : {}),
    recallQueries: partition.recallQueries,
  };
}

function withMemoryIds(
  sql: SqlExecutor,
  agentId: string,
  found: Array<{ seq: number; distance: number }>,
  k: number,
): Array<{ memoryId: string; cosine: number }> {
  found.sort((a, b) => a.distance - b.distance || a.seq - b.seq);
  const top = found.slice(0, k);
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
