import { MemoryError } from '@memory/core';
import { chunkSizes, statementsBySize, valueRows } from '../internal/row-chunks.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { VectorIndexWriter } from '../vector-index/index-writer.js';

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function allFinite(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (!Number.isFinite(vector[i])) return false;
  return true;
}

function checkVector(row: EmbeddingToStore): void {
  if (!(row.vector instanceof Float32Array) || !allFinite(row.vector)) {
    throw new MemoryError('PROVIDER_ERROR', 'a vector must be a Float32Array of finite values', {
      details: { sourceId: row.sourceId, model: row.model },
    });
  }
}

const EMBEDDING_COLUMNS =
  'INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at) VALUES ';
const EMBEDDING_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?)';
// Many rows: statements of 16, 8, 4, 2, 1 rows (row-chunks.ts).
const insertEmbeddingRows = statementsBySize(
  (n) => `${EMBEDDING_COLUMNS}${valueRows(n, EMBEDDING_VALUES)} RETURNING seq, source_id`,
);

function embeddingParameters(row: EmbeddingToStore): unknown[] {
  return [
    row.agentId,
    row.sourceType,
    row.sourceId,
    row.contentHash,
    row.model,
    row.vector.length,
    vectorBlob(row.vector),
    row.now,
  ];
}

/**
 * Stores a canonical vector for a source, replacing one of the same model (`fresh`: the source is
 * new and has none, so the lookup is skipped), and keeps the vector index in step through `index`
 * (omitted: canonical row only). Returns the new row's seq.
 */
export function upsertEmbedding(
  sql: SqlExecutor,
  row: EmbeddingToStore,
  index?: VectorIndexWriter,
  options: { fresh?: boolean } = {},
): number {
  return runSqliteProgram(sql, upsertEmbeddingProgram(row, index, options));
}

/** A canonical vector to store for a source. */
export interface EmbeddingToStore {
  readonly agentId: string;
  readonly sourceType: string;
  readonly sourceId: string;
  readonly contentHash: string;
  readonly model: string;
  readonly vector: Float32Array;
  readonly now: number;
}

/**
 * {@link upsertEmbedding} as a program. `index` is SQLite's vector index writer (it runs on the
 * SQLite executor between the program's statements); on PostgreSQL pass none: the canonical row
 * (bytea) is the whole store of vectors there for now.
 */
export function* upsertEmbeddingProgram(
  row: EmbeddingToStore,
  index?: VectorIndexWriter,
  options: { fresh?: boolean } = {},
): Program<number> {
  checkVector(row);
  const previous = options.fresh
    ? undefined
    : yield* get<{ seq: number }>(
        portable(
          'SELECT seq FROM embeddings WHERE source_type = ? AND source_id = ? AND model = ?',
          row.sourceType,
          row.sourceId,
          row.model,
        ),
      );
  if (previous) {
    yield* run(portable('DELETE FROM embeddings WHERE seq = ?', previous.seq));
    index?.remove({ agentId: row.agentId, model: row.model, dimensions: row.vector.length, seq: previous.seq });
  }
  index?.prepare(row.model, row.vector.length);
  const inserted = yield* get<{ seq: number }>(portable(insertEmbeddingRows(1), ...embeddingParameters(row)));
  const seq = inserted?.seq as number;
  index?.add({ agentId: row.agentId, model: row.model, seq, vector: row.vector });
  return seq;
}

/**
 * Stores the canonical vectors of sources that have none yet (new memories), in order, in
 * statements of up to 16 rows, and adds them to the vector index through `index` (SQLite only, as
 * in {@link upsertEmbeddingProgram}) in the same order. Every vector is checked before any is
 * written. Sources must be distinct within a call.
 */
export function* insertFreshEmbeddingsProgram(
  rows: readonly EmbeddingToStore[],
  index?: VectorIndexWriter,
): Program<void> {
  for (const row of rows) checkVector(row);
  // Every model's index exists before its first canonical row (see VectorIndexWriter.prepare).
  for (const row of rows) index?.prepare(row.model, row.vector.length);
  const seqs = new Map<string, number>();
  let i = 0;
  for (const n of chunkSizes(rows.length)) {
    const parameters: unknown[] = [];
    for (let j = i; j < i + n; j++) parameters.push(...embeddingParameters(rows[j] as EmbeddingToStore));
    // RETURNING's row order is not promised: the rows are matched by source.
    const inserted = yield* all<{ seq: number; source_id: string }>(portable(insertEmbeddingRows(n), ...parameters));
    for (const row of inserted) seqs.set(row.source_id, row.seq);
    i += n;
  }
  const stored = rows.map((row) => {
    const seq = seqs.get(row.sourceId);
    if (seq === undefined)
      throw new MemoryError('STORAGE_ERROR', 'a vector insert returned no row', {
        details: { sourceId: row.sourceId },
      });
    return { agentId: row.agentId, model: row.model, seq, vector: row.vector };
  });
  index?.addMany(stored);
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

/** Number of an agent's canonical vectors and of those its vector index partitions hold (diagnostics and tests). */
export function countEmbeddings(sql: SqlExecutor, agentId: string): { canonical: number; indexed: number } {
  const canonical =
    sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM embeddings WHERE agent_id = ?', agentId))?.n ?? 0;
  const indexed =
    sql.get<{ n: number | null }>(raw('SELECT sum(vectors) AS n FROM vector_partitions WHERE agent_id = ?', agentId))
      ?.n ?? 0;
  return { canonical, indexed };
}

/**
 * Removes every canonical vector of a source (all models) and its index rows (when `index` is
 * given); returns how many vectors went.
 */
export function deleteSourceEmbeddings(
  sql: SqlExecutor,
  source: { sourceType: string; sourceId: string },
  index?: VectorIndexWriter,
): number {
  return runSqliteProgram(sql, deleteSourceEmbeddingsProgram(source, index));
}

/** {@link deleteSourceEmbeddings} as a program (`index`: SQLite only, as in {@link upsertEmbeddingProgram}). */
export function* deleteSourceEmbeddingsProgram(
  source: { sourceType: string; sourceId: string },
  index?: VectorIndexWriter,
): Program<number> {
  const rows = yield* all<{ seq: number; agentId: string; model: string; dimensions: number }>(
    portable(
      'SELECT seq, agent_id AS "agentId", model, dimensions FROM embeddings WHERE source_type = ? AND source_id = ?',
      source.sourceType,
      source.sourceId,
    ),
  );
  for (const row of rows) {
    yield* run(portable('DELETE FROM embeddings WHERE seq = ?', row.seq));
    index?.remove(row);
  }
  return rows.length;
}

/**
 * Removes a source's vectors of every model but `keep` (and their index rows): once a memory has a
 * vector of the current embedder, vectors of earlier ones only take space (no query can be compared
 * with them). Returns how many went.
 */
export function deleteSourceEmbeddingsExcept(
  sql: SqlExecutor,
  source: { sourceType: string; sourceId: string },
  keep: string,
  index?: VectorIndexWriter,
): number {
  return runSqliteProgram(sql, deleteSourceEmbeddingsExceptProgram(source, keep, index));
}

/** {@link deleteSourceEmbeddingsExcept} as a program (`index`: SQLite only). */
export function* deleteSourceEmbeddingsExceptProgram(
  source: { sourceType: string; sourceId: string },
  keep: string,
  index?: VectorIndexWriter,
): Program<number> {
  const rows = yield* all<{ seq: number; agentId: string; model: string; dimensions: number }>(
    portable(
      `SELECT seq, agent_id AS "agentId", model, dimensions FROM embeddings
       WHERE source_type = ? AND source_id = ? AND model <> ?`,
      source.sourceType,
      source.sourceId,
      keep,
    ),
  );
  for (const row of rows) {
    yield* run(portable('DELETE FROM embeddings WHERE seq = ?', row.seq));
    index?.remove(row);
  }
  return rows.length;
}
