import type { SqlExecutor } from '../internal/sql.js';
import { FRESH_LIST } from './cells.js';
import { ensureVectorIndex, findVectorIndex, legacyMirror, type VectorIndex } from './indexes.js';
import { deleteLegacyRow, insertLegacyRow } from './legacy-mirror.js';
import { countPartitionVectors, countPartitionVectorsReturning, ensurePartition, findPartition } from './partitions.js';
import { deleteVecRow, insertVecRow, insertVecRows, type VecRow } from './vec-rows.js';

/**
 * Keeps the vector index in step with canonical vectors inside one write transaction. New vectors
 * go to the fresh list of the partition's current generation (the whole list of an exact partition;
 * the unassigned list of an ivf one, which the upkeep drains into its lists), so a write never
 * computes a list assignment. Removals reach every generation that may hold the vector. Index,
 * partition and legacy-mirror lookups are asked once per transaction.
 */
export class VectorIndexWriter {
  readonly #sql: SqlExecutor;
  readonly #available: boolean;
  readonly #now: number;
  readonly #indexes = new Map<string, VectorIndex | undefined>();
  readonly #partitions = new Map<string, { generation: number; otherGeneration: number | null }>();
  /** Vectors added per partition and not yet counted (only with `deferCounts`). */
  readonly #pendingCounts = new Map<string, { indexId: number; agentId: string; delta: number }>();
  readonly #deferCounts: boolean;
  #legacy: { model: string; dimensions: number } | null | undefined;

  /**
   * `deferCounts`: added vectors are counted in their partitions by {@link flushCounts} (once per
   * partition) instead of one update per vector; the caller must flush before its transaction ends.
   */
  constructor(sql: SqlExecutor, vectorAvailable: boolean, now: number, options: { deferCounts?: boolean } = {}) {
    this.#sql = sql;
    this.#available = vectorAvailable;
    this.#now = now;
    this.#deferCounts = options.deferCounts === true;
  }

  /** Writes the partition counts of the vectors added since the last flush (see `deferCounts`). */
  flushCounts(): void {
    for (const { indexId, agentId, delta } of this.#pendingCounts.values())
      countPartitionVectors(this.#sql, indexId, agentId, delta, this.#now);
    this.#pendingCounts.clear();
  }

  /**
   * Makes sure the model's index exists before a canonical vector is stored: an index created
   * after the row would count it among the older vectors its fill copies in, and index it twice.
   */
  prepare(model: string, dimensions: number): void {
    this.#index(model, dimensions, true);
  }

  /** Adds a stored canonical vector (seq) to its model's index, creating index and partition as needed. */
  add(row: { agentId: string; model: string; seq: number; vector: Float32Array }): void {
    const placed = this.#place(row);
    if (placed) insertVecRow(this.#sql, placed.table, placed.row);
  }

  /**
   * {@link add} for many stored vectors, in order: partitions are found and counted as `add` does,
   * the vec0 rows go in multi-row statements per index table.
   */
  addMany(rows: ReadonlyArray<{ agentId: string; model: string; seq: number; vector: Float32Array }>): void {
    const byTable = new Map<string, VecRow[]>();
    for (const row of rows) {
      const placed = this.#place(row);
      if (!placed) continue;
      const list = byTable.get(placed.table);
      if (list) list.push(placed.row);
      else byTable.set(placed.table, [placed.row]);
    }
    for (const [table, list] of byTable) insertVecRows(this.#sql, table, list);
  }

  /**
   * Everything of an added vector but its vec0 row: the index and partition (created as needed),
   * the partition's count (now, or pending with `deferCounts`) and the legacy mirror's row.
   */
  #place(row: {
    agentId: string;
    model: string;
    seq: number;
    vector: Float32Array;
  }): { table: string; row: VecRow } | undefined {
    const index = this.#index(row.model, row.vector.length, true);
    if (!index) return undefined;
    const key = `${index.id}\u0000${row.agentId}`;
    let partition = this.#partitions.get(key);
    let counted = false;
    if (!partition) {
      // The partition's first vector in this transaction is counted, and its generations read, in one
      // statement (a single remember runs one partition statement instead of a read and an update).
      partition = countPartitionVectorsReturning(this.#sql, index.id, row.agentId, 1, this.#now);
      counted = partition !== undefined;
      if (partition) this.#partitions.set(key, partition);
      // Its first vector ever: the partition is created, then counted as the others are.
      else
        partition = this.#partition(index, row.agentId, true) as { generation: number; otherGeneration: number | null };
    }
    if (!counted) {
      if (this.#deferCounts) {
        const pending = this.#pendingCounts.get(key);
        if (pending) pending.delta++;
        else this.#pendingCounts.set(key, { indexId: index.id, agentId: row.agentId, delta: 1 });
      } else countPartitionVectors(this.#sql, index.id, row.agentId, 1, this.#now);
    }
    if (this.#legacyFor(index)) insertLegacyRow(this.#sql, row.agentId, row.seq, row.vector);
    return {
      table: index.tableName,
      row: {
        agentId: row.agentId,
        generation: partition.generation,
        list: FRESH_LIST,
        seq: row.seq,
        vector: row.vector,
      },
    };
  }

  /** Removes a canonical vector (seq) from its model's index, wherever it is. */
  remove(row: { agentId: string; model: string; dimensions: number; seq: number }): void {
    const index = this.#index(row.model, row.dimensions, false);
    if (!index) {
      // No index for this model yet; a legacy mirror of it may still hold the vector.
      const legacy = this.#legacyMirror();
      if (legacy && legacy.model === row.model && legacy.dimensions === row.dimensions)
        deleteLegacyRow(this.#sql, row.seq);
      return;
    }
    const partition = this.#partition(index, row.agentId, false);
    if (partition) {
      const removed = deleteVecRow(this.#sql, index.tableName, partition.generation, row.seq);
      if (partition.otherGeneration !== null)
        deleteVecRow(this.#sql, index.tableName, partition.otherGeneration, row.seq);
      countPartitionVectors(this.#sql, index.id, row.agentId, -removed, this.#now);
    }
    if (this.#legacyFor(index)) deleteLegacyRow(this.#sql, row.seq);
  }

  #index(model: string, dimensions: number, create: boolean): VectorIndex | undefined {
    if (!this.#available) return undefined;
    const key = `${model}\u0000${dimensions}`;
    if (this.#indexes.has(key)) {
      const cached = this.#indexes.get(key);
      if (cached || !create) return cached;
    }
    const index = create
      ? ensureVectorIndex(this.#sql, true, model, dimensions, this.#now)
      : findVectorIndex(this.#sql, model, dimensions);
    this.#indexes.set(key, index);
    return index;
  }

  #partition(
    index: VectorIndex,
    agentId: string,
    create: boolean,
  ): { generation: number; otherGeneration: number | null } | undefined {
    const key = `${index.id}\u0000${agentId}`;
    let partition = this.#partitions.get(key);
    if (!partition) {
      partition = create
        ? ensurePartition(this.#sql, index.id, agentId, this.#now)
        : findPartition(this.#sql, index.id, agentId);
      if (partition)
        this.#partitions.set(key, { generation: partition.generation, otherGeneration: partition.otherGeneration });
    }
    return partition;
  }

  #legacyMirror(): { model: string; dimensions: number } | undefined {
    if (this.#legacy === undefined) this.#legacy = legacyMirror(this.#sql) ?? null;
    return this.#legacy ?? undefined;
  }

  /** The legacy mirror is kept only while it answers for this model (its index is still filling). */
  #legacyFor(index: VectorIndex): boolean {
    if (index.status !== 'filling') return false;
    const legacy = this.#legacyMirror();
    return legacy !== undefined && legacy.model === index.model && legacy.dimensions === index.dimensions;
  }
}
