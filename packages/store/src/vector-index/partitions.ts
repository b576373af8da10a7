import { raw, type SqlExecutor } from '../internal/sql.js';

/** One agent's part of a vector index. */
export interface VectorPartition {
  readonly indexId: number;
  readonly agentId: string;
  /** The generation queries read. */
  readonly generation: number;
  /** `exact`: one list searched whole; `ivf`: k-means lists, the `probes` nearest searched. */
  readonly layout: 'exact' | 'ivf';
  readonly lists: number;
  readonly probes: number;
  /** Neighbour recall@10 measured when the ivf generation was built (at `probes`). */
  readonly estimatedRecall: number | null;
  readonly recallQueries: number;
  /** Real queries of this generation audited against an exact search. */
  readonly audits: number;
  /** Live vectors (kept by the writer). */
  readonly vectors: number;
  readonly builtVectors: number;
  /** ivf: vectors with a larger seq wait, unassigned, in the fresh list (searched whole). */
  readonly drainedSeq: number;
  /** A generation being built or removed; writers delete from it as well. */
  readonly otherGeneration: number | null;
  readonly builtAt: number | null;
}

const SELECT_PARTITION = `SELECT index_id AS indexId, agent_id AS agentId, generation, layout, lists, probes,
  estimated_recall AS estimatedRecall, recall_queries AS recallQueries, audits, vectors, built_vectors AS builtVectors,
  drained_seq AS drainedSeq, other_generation AS otherGeneration, built_at AS builtAt
  FROM vector_partitions`;

/** An agent's partition of an index, if it has one. */
export function findPartition(sql: SqlExecutor, indexId: number, agentId: string): VectorPartition | undefined {
  return sql.get<VectorPartition>(raw(`${SELECT_PARTITION} WHERE index_id = ? AND agent_id = ?`, indexId, agentId));
}

/** Every partition of an index. */
export function listPartitions(sql: SqlExecutor, indexId: number): VectorPartition[] {
  return sql.all<VectorPartition>(raw(`${SELECT_PARTITION} WHERE index_id = ? ORDER BY agent_id`, indexId));
}

/** The partition, created (exact, generation 1, empty) when the agent has none. */
export function ensurePartition(sql: SqlExecutor, indexId: number, agentId: string, now: number): VectorPartition {
  const existing = findPartition(sql, indexId, agentId);
  if (existing) return existing;
  sql.run(
    raw(
      `INSERT INTO vector_partitions (index_id, agent_id, generation, last_generation, layout, updated_at)
       VALUES (?, ?, 1, 1, 'exact', ?)`,
      indexId,
      agentId,
      now,
    ),
  );
  return findPartition(sql, indexId, agentId) as VectorPartition;
}

/** Sets the partition's live vector count (when the upkeep finds it has none left to read). */
export function setPartitionVectors(
  sql: SqlExecutor,
  indexId: number,
  agentId: string,
  vectors: number,
  now: number,
): void {
  sql.run(
    raw(
      'UPDATE vector_partitions SET vectors = ?, updated_at = ? WHERE index_id = ? AND agent_id = ?',
      vectors,
      now,
      indexId,
      agentId,
    ),
  );
}

/** Adds `delta` to the partition's live vector count. */
export function countPartitionVectors(
  sql: SqlExecutor,
  indexId: number,
  agentId: string,
  delta: number,
  now: number,
): void {
  if (delta === 0) return;
  sql.run(
    raw(
      'UPDATE vector_partitions SET vectors = max(0, vectors + ?), updated_at = ? WHERE index_id = ? AND agent_id = ?',
      delta,
      now,
      indexId,
      agentId,
    ),
  );
}

/**
 * Adds `delta` to a partition's live vector count and returns its generations, in one statement;
 * undefined (nothing changed) when the agent has no partition of this index yet.
 */
export function countPartitionVectorsReturning(
  sql: SqlExecutor,
  indexId: number,
  agentId: string,
  delta: number,
  now: number,
): { generation: number; otherGeneration: number | null } | undefined {
  return sql.get(
    raw(
      `UPDATE vector_partitions SET vectors = max(0, vectors + ?), updated_at = ? WHERE index_id = ? AND agent_id = ?
       RETURNING generation, other_generation AS otherGeneration`,
      delta,
      now,
      indexId,
      agentId,
    ),
  );
}

/**
 * Partitions with upkeep due: exact ones past `exactMax` vectors, ivf ones that doubled since they
 * were built or shrank below half of `exactMax`, and any with a build in progress.
 */
export function partitionsNeedingBuild(sql: SqlExecutor, indexId: number, exactMax: number): VectorPartition[] {
  return sql.all<VectorPartition>(
    raw(
      `${SELECT_PARTITION} WHERE index_id = ? AND (
         (layout = 'exact' AND vectors > ?) OR
         (layout = 'ivf' AND (vectors > 2 * built_vectors OR vectors < ?)) OR
         other_generation IS NOT NULL)
       ORDER BY vectors DESC`,
      indexId,
      exactMax,
      Math.floor(exactMax / 2),
    ),
  );
}

/**
 * ivf partitions with about `threshold` fresh vectors or more (counted from the live-vector counter
 * since the last full drain, so finding them reads no vectors), a rebuild under way or not.
 */
export function partitionsNeedingDrain(sql: SqlExecutor, indexId: number, threshold: number): VectorPartition[] {
  return sql.all<VectorPartition>(
    raw(
      `${SELECT_PARTITION} WHERE index_id = ? AND layout = 'ivf'
         AND vectors - drained_vectors >= ? ORDER BY vectors - drained_vectors DESC`,
      indexId,
      threshold,
    ),
  );
}

/** What a finished build makes the partition. */
export interface PartitionLayout {
  readonly generation: number;
  readonly layout: 'exact' | 'ivf';
  readonly lists: number;
  readonly probes: number;
  readonly estimatedRecall: number | null;
  readonly recallQueries: number;
  readonly builtVectors: number;
  readonly drainedSeq: number;
  /** The generation that answered until now, removed next (or null when nothing is left to remove). */
  readonly retiring: number | null;
}

/** Switches the partition to a built generation (queries read it from this commit on). */
export function switchPartition(
  sql: SqlExecutor,
  indexId: number,
  agentId: string,
  layout: PartitionLayout,
  now: number,
): void {
  sql.run(
    raw(
      `UPDATE vector_partitions SET generation = ?, layout = ?, lists = ?, probes = ?, estimated_recall = ?,
         recall_queries = ?, audits = 0, built_vectors = ?, drained_seq = ?, drained_vectors = vectors,
         other_generation = ?, built_at = ?, updated_at = ?
       WHERE index_id = ? AND agent_id = ?`,
      layout.generation,
      layout.layout,
      layout.lists,
      layout.probes,
      layout.estimatedRecall,
      layout.recallQueries,
      layout.builtVectors,
      layout.drainedSeq,
      layout.retiring,
      now,
      now,
      indexId,
      agentId,
    ),
  );
}

/** Takes the partition's next generation number (never used before) for a build. */
export function takeGeneration(sql: SqlExecutor, indexId: number, agentId: string, now: number): number {
  return sql.get<{ g: number }>(
    raw(
      `UPDATE vector_partitions SET last_generation = last_generation + 1, updated_at = ?
       WHERE index_id = ? AND agent_id = ? RETURNING last_generation AS g`,
      now,
      indexId,
      agentId,
    ),
  )?.g as number;
}

/** Sets or clears the generation writers must also delete from. */
export function setOtherGeneration(
  sql: SqlExecutor,
  indexId: number,
  agentId: string,
  generation: number | null,
  now: number,
): void {
  sql.run(
    raw(
      'UPDATE vector_partitions SET other_generation = ?, updated_at = ? WHERE index_id = ? AND agent_id = ?',
      generation,
      now,
      indexId,
      agentId,
    ),
  );
}

/** Sets the probe count and the recall behind it, after an audit of real queries. */
export function setProbes(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
  change: { probes: number; estimatedRecall: number; recallQueries: number; audits: number },
  now: number,
): void {
  sql.run(
    raw(
      `UPDATE vector_partitions SET probes = ?, estimated_recall = ?, recall_queries = ?, audits = ?, updated_at = ?
       WHERE index_id = ? AND agent_id = ? AND generation = ?`,
      change.probes,
      change.estimatedRecall,
      change.recallQueries,
      change.audits,
      now,
      key.indexId,
      key.agentId,
      key.generation,
    ),
  );
}

/**
 * Records how far the fresh list was drained into the lists: `moved` more vectors, or, when the
 * fresh list is empty (`complete`), every live vector.
 */
export function setDrained(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string },
  drained: { seq: number; moved: number; complete: boolean },
  now: number,
): void {
  sql.run(
    raw(
      `UPDATE vector_partitions SET drained_seq = ?,
         drained_vectors = CASE WHEN ? THEN vectors ELSE drained_vectors + ? END, updated_at = ?
       WHERE index_id = ? AND agent_id = ?`,
      drained.seq,
      drained.complete ? 1 : 0,
      drained.moved,
      now,
      key.indexId,
      key.agentId,
    ),
  );
}
