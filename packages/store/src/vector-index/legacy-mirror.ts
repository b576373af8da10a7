import { raw, type SqlExecutor } from '../internal/sql.js';
import { LEGACY_BIT_TABLE } from './indexes.js';

// The sign-bit mirror of earlier versions (one bit per dimension, partitioned by agent). A database
// that has one keeps it current and answers from it while the new index fills from the canonical
// vectors; it is dropped when the fill completes. Its recall is unknown, so its answers are
// reported as approximate without an estimate.

/** Bits in the mirror for a vector of `dimensions` (vec0 bit columns need a multiple of 8). */
export function sketchBits(dimensions: number): number {
  return Math.ceil(dimensions / 8) * 8;
}

/** Sign bits of a vector (bit i set when v[i] > 0), padded with zeros to a whole byte. */
export function signSketch(vector: Float32Array): Buffer {
  const out = Buffer.alloc(sketchBits(vector.length) / 8);
  for (let i = 0; i < vector.length; i++) if ((vector[i] ?? 0) > 0) out[i >> 3] = (out[i >> 3] ?? 0) | (1 << (i & 7));
  return out;
}

/** Adds a vector's sign bits to the legacy mirror. */
export function insertLegacyRow(sql: SqlExecutor, agentId: string, seq: number, vector: Float32Array): void {
  sql.run(
    raw(
      `INSERT INTO ${LEGACY_BIT_TABLE} (rowid, agent_id, embedding) VALUES (?, ?, vec_bit(?))`,
      BigInt(seq),
      agentId,
      signSketch(vector),
    ),
  );
}

/** Removes a vector from the legacy mirror. */
export function deleteLegacyRow(sql: SqlExecutor, seq: number): void {
  sql.run(raw(`DELETE FROM ${LEGACY_BIT_TABLE} WHERE rowid = ?`, BigInt(seq)));
}

const COARSE_KNN = `SELECT rowid AS seq FROM ${LEGACY_BIT_TABLE} WHERE embedding MATCH vec_bit(?) AND k = ? AND agent_id = ?`;
const VECTORS_BY_SEQ = `
  SELECT e.source_id AS memoryId, e.vector
  FROM json_each(?) AS wanted
  CROSS JOIN embeddings AS e ON e.seq = wanted.value
  WHERE e.agent_id = ? AND e.source_type = 'memory'`;

/** Coarse neighbours by Hamming distance over sign bits, with canonical vectors to rescore. */
export function knnLegacyMirror(
  sql: SqlExecutor,
  agentId: string,
  vector: Float32Array,
  k: number,
): Array<{ memoryId: string; vector: Buffer }> {
  const seqs = sql.all<{ seq: number }>(raw(COARSE_KNN, signSketch(vector), k, agentId)).map((r) => r.seq);
  if (seqs.length === 0) return [];
  return sql.all(raw(VECTORS_BY_SEQ, JSON.stringify(seqs), agentId));
}
