import { MemoryError } from '@memory/core';
import { type SqlExecutor, raw } from '../internal/sql.js';

/** The vec0 table mirroring `embeddings`; its rowid is `embeddings.seq`. */
export const VECTOR_TABLE = 'vec_embeddings';

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/**
 * Makes sure the vec0 mirror exists for `dimensions` (vec0 columns have a fixed size, so the table
 * is created at run time for the configured embedder). When the embedder's dimensions change, the
 * mirror is recreated and refilled from canonical vectors of the new model.
 * Call inside a write transaction; returns false when sqlite-vec is not loaded.
 */
export function ensureVectorIndex(sql: SqlExecutor, vectorAvailable: boolean, model: string, dimensions: number, now: number): boolean {
  if (!vectorAvailable) return false;
  const state = sql.get<{ model: string; dimensions: number }>(
    raw('SELECT model, dimensions FROM vector_index_state WHERE name = ?', VECTOR_TABLE),
  );
  if (state && state.dimensions === dimensions && state.model === model) return true;
  sql.run(raw(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`));
  sql.run(
    raw(
      `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(agent_id text partition key, embedding float[${dimensions}] distance_metric=cosine)`,
    ),
  );
  sql.run(
    raw(
      `INSERT INTO vector_index_state (name, model, dimensions, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (name) DO UPDATE SET model = excluded.model, dimensions = excluded.dimensions, created_at = excluded.created_at`,
      VECTOR_TABLE,
      model,
      dimensions,
      now,
    ),
  );
  sql.run(
    raw(
      `INSERT INTO ${VECTOR_TABLE} (rowid, agent_id, embedding)
       SELECT seq, agent_id, vector FROM embeddings WHERE model = ? AND dimensions = ?`,
      model,
      dimensions,
    ),
  );
  return true;
}

/**
 * Stores a canonical vector for a source (replacing one of the same model) and mirrors it into
 * vec0 when the mirror exists. Ids are bound as BigInt: vec0 rejects rowids bound as floats.
 */
export function upsertEmbedding(
  sql: SqlExecutor,
  row: { agentId: string; sourceType: string; sourceId: string; contentHash: string; model: string; vector: Float32Array; now: number },
  mirror: boolean,
): void {
  if (!row.vector.every(Number.isFinite)) {
    throw new MemoryError('PROVIDER_ERROR', 'the embedder returned a vector with non-finite values', {
      details: { sourceId: row.sourceId, model: row.model },
    });
  }
  const previous = sql.get<{ seq: number }>(
    raw('SELECT seq FROM embeddings WHERE source_type = ? AND source_id = ? AND model = ?', row.sourceType, row.sourceId, row.model),
  );
  if (previous) {
    sql.run(raw('DELETE FROM embeddings WHERE seq = ?', previous.seq));
    if (mirror) sql.run(raw(`DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`, BigInt(previous.seq)));
  }
  const blob = vectorBlob(row.vector);
  const seq = sql.get<{ seq: number }>(
    raw(
      `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`,
      row.agentId,
      row.sourceType,
      row.sourceId,
      row.contentHash,
      row.model,
      row.vector.length,
      blob,
      row.now,
    ),
  )?.seq;
  if (mirror && seq !== undefined) {
    sql.run(raw(`INSERT INTO ${VECTOR_TABLE} (rowid, agent_id, embedding) VALUES (?, ?, ?)`, BigInt(seq), row.agentId, blob));
  }
}

/** Number of canonical vectors and of vec0 rows for an agent (diagnostics and tests). */
export function countEmbeddings(sql: SqlExecutor, agentId: string, mirror: boolean): { canonical: number; mirrored: number } {
  const canonical = sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM embeddings WHERE agent_id = ?', agentId))?.n ?? 0;
  const mirrored = mirror
    ? (sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${VECTOR_TABLE} WHERE agent_id = ?`, agentId))?.n ?? 0)
    : 0;
  return { canonical, mirrored };
}
