import { chunkSizes, valueRows } from '../internal/row-chunks.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { cellOf, MAX_LISTS, rowidOf } from './cells.js';

// The statements on one index's vec0 table. The table name comes from `vector_indexes`, never from
// input. Rowids and cells are BigInt (see cells.ts); the KNN returns the seq (the rowid without its
// generation bits) computed in SQL, so rowids past 2^53 never pass through a JavaScript number.

const SEQ_MASK = (1n << 40n) - 1n;

function blob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** Adds a vector to a list of a generation. */
export function insertVecRow(
  sql: SqlExecutor,
  table: string,
  row: { agentId: string; generation: number; list: number; seq: number; vector: Float32Array },
): void {
  sql.run(
    raw(
      `INSERT INTO ${table} (rowid, agent_id, cell, embedding) VALUES (?, ?, ?, ?)`,
      rowidOf(row.generation, row.seq),
      row.agentId,
      cellOf(row.generation, row.list),
      blob(row.vector),
    ),
  );
}

/** A vector to add to a list of a generation (see {@link insertVecRow}). */
export interface VecRow {
  readonly agentId: string;
  readonly generation: number;
  readonly list: number;
  readonly seq: number;
  readonly vector: Float32Array;
}

/** Adds vectors in order, in statements of up to 16 rows (row-chunks.ts; vec0 takes a multi-row VALUES). */
export function insertVecRows(sql: SqlExecutor, table: string, rows: readonly VecRow[]): void {
  let i = 0;
  for (const n of chunkSizes(rows.length)) {
    const parameters: unknown[] = [];
    for (let j = i; j < i + n; j++) {
      const row = rows[j] as VecRow;
      parameters.push(
        rowidOf(row.generation, row.seq),
        row.agentId,
        cellOf(row.generation, row.list),
        blob(row.vector),
      );
    }
    // The executor caches statements by text: five texts per index table.
    sql.run(
      raw(
        `INSERT INTO ${table} (rowid, agent_id, cell, embedding) VALUES ${valueRows(n, '(?, ?, ?, ?)')}`,
        ...parameters,
      ),
    );
    i += n;
  }
}

/** Removes a vector from a generation (wherever its list); 0 when it was not there. */
export function deleteVecRow(sql: SqlExecutor, table: string, generation: number, seq: number): number {
  return sql.run(raw(`DELETE FROM ${table} WHERE rowid = ?`, rowidOf(generation, seq))).changes;
}

/**
 * Exact cosine KNN inside lists `first..last` of a generation (one list when they are equal): the
 * seq and cosine distance of the `k` nearest, with a distance of at most `bound` when one is given.
 * One KNN over a run of consecutive lists costs its vectors only; one per list adds a fixed cost per
 * call (about 0.07 ms, a fifth of a 500-vector list). vec0 applies the bound before its per-chunk
 * top-k selection (O(chunk × k) otherwise), so a far list under a tight bound costs its distances only.
 */
export function knnInCells(
  sql: SqlExecutor,
  table: string,
  agentId: string,
  generation: number,
  lists: { first: number; last: number },
  query: Float32Array,
  k: number,
  bound?: number,
): Array<{ seq: number; distance: number }> {
  const within = bound === undefined ? '' : ' AND distance <= ?';
  const cells =
    lists.first === lists.last
      ? { where: 'cell = ?', args: [cellOf(generation, lists.first)] }
      : { where: 'cell >= ? AND cell <= ?', args: [cellOf(generation, lists.first), cellOf(generation, lists.last)] };
  return sql.all(
    raw(
      `SELECT rowid & ? AS seq, distance FROM ${table}
       WHERE embedding MATCH ? AND k = ? AND agent_id = ? AND ${cells.where}${within}`,
      SEQ_MASK,
      blob(query),
      k,
      agentId,
      ...cells.args,
      ...(bound === undefined ? [] : [bound]),
    ),
  );
}

/** Exact cosine KNN over every list of a generation (one KNN over the range of its cells). */
export function knnInGeneration(
  sql: SqlExecutor,
  table: string,
  agentId: string,
  generation: number,
  query: Float32Array,
  k: number,
): Array<{ seq: number; distance: number }> {
  return sql.all(
    raw(
      `SELECT rowid & ? AS seq, distance FROM ${table}
       WHERE embedding MATCH ? AND k = ? AND agent_id = ? AND cell >= ? AND cell <= ?`,
      SEQ_MASK,
      blob(query),
      k,
      agentId,
      cellOf(generation, 0),
      cellOf(generation, MAX_LISTS + 1),
    ),
  );
}

/** A canonical vector in a list of a generation (`list` ≥ 1; 0 is the fresh list). */
export interface ListedVector {
  readonly seq: number;
  readonly vector: Buffer;
  readonly list: number;
}

/**
 * An agent's memory vectors of one model with `afterSeq < seq ≤ untilSeq`, in seq order, with the
 * list each is in in `generation` (vectors the generation does not hold are left out). The list
 * comes from the vec0 row itself (a point lookup by rowid), so it is the list a KNN would search.
 */
export function listedVectorsBetween(
  sql: SqlExecutor,
  table: string,
  key: { agentId: string; model: string; generation: number },
  afterSeq: number,
  untilSeq: number,
  limit: number,
): ListedVector[] {
  return sql.all(
    raw(
      `SELECT e.seq AS seq, e.vector AS vector, (v.cell & ?) AS list
       FROM embeddings AS e JOIN ${table} AS v ON v.rowid = ? + e.seq
       WHERE e.agent_id = ? AND e.model = ? AND e.source_type = 'memory' AND e.seq > ? AND e.seq <= ?
       ORDER BY e.seq LIMIT ?`,
      BigInt(MAX_LISTS + 1),
      rowidOf(key.generation, 0),
      key.agentId,
      key.model,
      afterSeq,
      untilSeq,
      limit,
    ),
  );
}

/**
 * The `k` vectors of one list of a generation nearest its centroid, at `from` or farther when
 * given, nearest first, with their seq and distance: a KNN of the list's own centroid, so vec0
 * reads only that list's chunks (a query without a KNN scans the whole table whatever its
 * partition keys). A list larger than `k` (vec0's largest is 4,096) is read in pages, each from
 * the last one's farthest distance.
 */
export function vectorsOfList(
  sql: SqlExecutor,
  table: string,
  key: { agentId: string; generation: number },
  list: number,
  centroid: Float32Array,
  k: number,
  from?: number,
): Array<{ seq: number; vector: Buffer; distance: number }> {
  return sql.all(
    raw(
      `SELECT rowid & ? AS seq, embedding AS vector, distance FROM ${table}
       WHERE embedding MATCH ? AND k = ? AND agent_id = ? AND cell = ?${from === undefined ? '' : ' AND distance >= ?'}`,
      SEQ_MASK,
      blob(centroid),
      k,
      key.agentId,
      cellOf(key.generation, list),
      ...(from === undefined ? [] : [from]),
    ),
  );
}
