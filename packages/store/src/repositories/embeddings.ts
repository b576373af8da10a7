import { MemoryError } from '@memory/core';
import { raw, type SqlExecutor } from '../internal/sql.js';

/**
 * The vec0 table mirroring `embeddings` as sign bits (binary quantization), partitioned by agent;
 * its rowid is `embeddings.seq`. Recall reads a coarse top-k by Hamming distance inside the agent's
 * partition, then rescores those candidates exactly from the canonical float vectors. A float
 * mirror measured 30–50 ms per KNN at 100k vectors of 384 dimensions in one partition; bits, 6–11 ms.
 */
export const VECTOR_TABLE = 'vec_memory_bits';
/** The float mirror earlier builds created; dropped when the bit mirror is built. */
const RETIRED_VECTOR_TABLE = 'vec_embeddings';

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

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

/**
 * Makes sure the vec0 mirror exists for `dimensions` (vec0 columns have a fixed size, so the table
 * is created at run time for the configured embedder). When the embedder's dimensions change, the
 * mirror is recreated and refilled from canonical vectors of the new model.
 * Call inside a write transaction; returns false when sqlite-vec is not loaded.
 */
export function ensureVectorIndex(
  sql: SqlExecutor,
  vectorAvailable: boolean,
  model: string,
  dimensions: number,
  now: number,
): boolean {
  if (!vectorAvailable) return false;
  const state = sql.get<{ model: string; dimensions: number }>(
    raw('SELECT model, dimensions FROM vector_index_state WHERE name = ?', VECTOR_TABLE),
  );
  if (state && state.dimensions === dimensions && state.model === model) return true;
  sql.run(raw(`DROP TABLE IF EXISTS ${RETIRED_VECTOR_TABLE}`));
  sql.run(raw('DELETE FROM vector_index_state WHERE name = ?', RETIRED_VECTOR_TABLE));
  sql.run(raw(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`));
  sql.run(
    raw(
      `CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(agent_id text partition key, embedding bit[${sketchBits(dimensions)}])`,
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
  const insert = `INSERT INTO ${VECTOR_TABLE} (rowid, agent_id, embedding) VALUES (?, ?, vec_bit(?))`;
  const page =
    'SELECT seq, agent_id, vector FROM embeddings WHERE model = ? AND dimensions = ? AND seq > ? ORDER BY seq LIMIT 1000';
  for (let after = 0; ; ) {
    const rows = sql.all<{ seq: number; agent_id: string; vector: Buffer }>(raw(page, model, dimensions, after));
    for (const row of rows) sql.run(raw(insert, BigInt(row.seq), row.agent_id, signSketch(blobToVector(row.vector))));
    const last = rows.at(-1);
    if (!last) break;
    after = last.seq;
  }
  return true;
}

/**
 * Stores a canonical vector for a source (replacing one of the same model) and mirrors it into
 * vec0 when the mirror exists. Ids are bound as BigInt: vec0 rejects rowids bound as floats.
 */
export function upsertEmbedding(
  sql: SqlExecutor,
  row: {
    agentId: string;
    sourceType: string;
    sourceId: string;
    contentHash: string;
    model: string;
    vector: Float32Array;
    now: number;
  },
  mirror: boolean,
): void {
  if (!row.vector.every(Number.isFinite)) {
    throw new MemoryError('PROVIDER_ERROR', 'the embedder returned a vector with non-finite values', {
      details: { sourceId: row.sourceId, model: row.model },
    });
  }
  const previous = sql.get<{ seq: number }>(
    raw(
      'SELECT seq FROM embeddings WHERE source_type = ? AND source_id = ? AND model = ?',
      row.sourceType,
      row.sourceId,
      row.model,
    ),
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
    sql.run(
      raw(
        `INSERT INTO ${VECTOR_TABLE} (rowid, agent_id, embedding) VALUES (?, ?, vec_bit(?))`,
        BigInt(seq),
        row.agentId,
        signSketch(row.vector),
      ),
    );
  }
}

/**
 * A stored float32 vector blob as a Float32Array: a view when the blob is 4-byte aligned, else a
 * copy. Treat it as read-only (a view shares the blob's memory).
 */
export function blobToVector(blob: Buffer): Float32Array {
  const length = blob.byteLength >>> 2;
  if (blob.byteOffset % 4 === 0) return new Float32Array(blob.buffer, blob.byteOffset, length);
  const out = new Float32Array(length);
  new Uint8Array(out.buffer).set(blob.subarray(0, length * 4));
  return out;
}

/** Number of canonical vectors and of vec0 rows for an agent (diagnostics and tests). */
export function countEmbeddings(
  sql: SqlExecutor,
  agentId: string,
  mirror: boolean,
): { canonical: number; mirrored: number } {
  const canonical =
    sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM embeddings WHERE agent_id = ?', agentId))?.n ?? 0;
  const mirrored = mirror
    ? (sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${VECTOR_TABLE} WHERE agent_id = ?`, agentId))?.n ?? 0)
    : 0;
  return { canonical, mirrored };
}

/**
 * Removes every canonical vector of a source (all models) and its vec0 mirror rows. The mirror is
 * touched only when sqlite-vec is loaded and the mirror exists; returns how many vectors went.
 */
export function deleteSourceEmbeddings(
  sql: SqlExecutor,
  source: { sourceType: string; sourceId: string },
  vectorAvailable: boolean,
): number {
  const rows = sql.all<{ seq: number }>(
    raw('SELECT seq FROM embeddings WHERE source_type = ? AND source_id = ?', source.sourceType, source.sourceId),
  );
  if (rows.length === 0) return 0;
  const mirror =
    vectorAvailable && sql.get(raw('SELECT 1 AS x FROM vector_index_state WHERE name = ?', VECTOR_TABLE)) !== undefined;
  for (const { seq } of rows) {
    sql.run(raw('DELETE FROM embeddings WHERE seq = ?', seq));
    if (mirror) sql.run(raw(`DELETE FROM ${VECTOR_TABLE} WHERE rowid = ?`, BigInt(seq)));
  }
  return rows.length;
}
