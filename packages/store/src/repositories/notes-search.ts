import { raw, type SqlExecutor } from '../internal/sql.js';
import { arrays, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { NoteRow } from '../schema/notes.js';
import { blobToVector } from './embeddings.js';
import { findNotesBySeqProgram } from './notes.js';
import { rankScopedTextProgram } from './scoped-text-search.js';

/** A note and its BM25 score (the agent's own statistics). */
export interface NoteTextHit {
  readonly row: NoteRow;
  readonly score: number;
}

/**
 * The agent's notes ranked by BM25 over their title and content, from the agent's own statistics
 * (the notes' scoped text index): another agent's notes change neither the scores nor the order.
 * Only notes `keep` accepts count: the ranking deepens (the exact top `want`, then 4×, 16×...) until
 * `want` of them are found or every match was read, so rows are read for the head, not for every
 * note sharing a word with the query. Best first; ties in insertion order.
 */
export function rankNotesByText(
  sql: SqlExecutor,
  agentId: string,
  tokens: readonly string[],
  want: number,
  keep: (row: NoteRow) => boolean = () => true,
  within?: readonly number[],
): NoteTextHit[] {
  return runSqliteProgram(sql, rankNotesByTextProgram(agentId, tokens, want, keep, within));
}

/** {@link rankNotesByText} as a program (both dialects: the same scores from the same postings). */
export function* rankNotesByTextProgram(
  agentId: string,
  tokens: readonly string[],
  want: number,
  keep: (row: NoteRow) => boolean = () => true,
  within?: readonly number[],
): Program<NoteTextHit[]> {
  for (let depth = Math.max(1, want); ; depth *= 4) {
    // With `within` (seqs from another index), only those notes are scored, in one pass.
    const ranking = yield* rankScopedTextProgram('note', agentId, tokens, within ? { rows: within } : { depth });
    const scores = new Map(ranking.rows.map((r) => [r.row, r.score]));
    const rows = (yield* findNotesBySeqProgram(agentId, [...scores.keys()])).filter(keep);
    if (within || rows.length >= want || ranking.complete || ranking.rows.length < depth)
      return rows
        .map((row) => ({ row, score: scores.get(row.seq) ?? 0 }))
        .sort((a, b) => b.score - a.score || a.row.seq - b.row.seq)
        .slice(0, within ? want : undefined);
  }
}

/** Stores a note's vector for a model, replacing the one it had. */
export function upsertNoteVector(sql: SqlExecutor, row: NoteVectorRow): void {
  runSqliteProgram(sql, upsertNoteVectorProgram(row));
}

/** A note's vector for one model. */
export interface NoteVectorRow {
  readonly noteId: string;
  readonly agentId: string;
  readonly model: string;
  readonly contentHash: string;
  readonly vector: Float32Array;
  readonly now: number;
}

// Valid on both dialects: `excluded` is the proposed row in SQLite's upsert and PostgreSQL's alike.
const UPSERT_VECTOR = `INSERT INTO note_vectors (note_id, agent_id, model, dimensions, content_hash, vector, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?)
  ON CONFLICT (note_id, model) DO UPDATE SET dimensions = excluded.dimensions,
    content_hash = excluded.content_hash, vector = excluded.vector, created_at = excluded.created_at`;

/** {@link upsertNoteVector} as a program (both dialects; the blob is float32, little-endian, on both). */
export function* upsertNoteVectorProgram(row: NoteVectorRow): Program<void> {
  yield* run(
    portable(
      UPSERT_VECTOR,
      row.noteId,
      row.agentId,
      row.model,
      row.vector.length,
      row.contentHash,
      Buffer.from(row.vector.buffer, row.vector.byteOffset, row.vector.byteLength),
      row.now,
    ),
  );
}

/** A note and its cosine similarity to a query. */
export interface NoteVectorHit {
  readonly noteId: string;
  readonly cosine: number;
}

/** Where to look: the agent, the embedding model, the query (a unit vector). */
export interface NoteVectorQuery {
  readonly agentId: string;
  readonly model: string;
  readonly query: Float32Array;
  /**
   * Whether sqlite-vec is loaded (`store.vector.available`): cosines are then computed in SQLite.
   * Always false on PostgreSQL (its vectors are compared in JavaScript).
   */
  readonly vectorAvailable: boolean;
}

const blobOf = (v: Float32Array) => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
const byCosine = (a: NoteVectorHit, b: NoteVectorHit) =>
  b.cosine - a.cosine || (a.noteId < b.noteId ? -1 : a.noteId > b.noteId ? 1 : 0);

function cosineOf(query: Float32Array, v: Float32Array): number {
  const n = Math.min(query.length, v.length);
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i] as number;
    dot += (query[i] as number) * x;
    norm += x * x;
  }
  return norm === 0 ? 0 : dot / Math.sqrt(norm);
}

const SCAN = `SELECT note_id, vector FROM note_vectors WHERE agent_id = ? AND model = ?
  AND (? IS NULL OR note_id IN (SELECT value FROM json_each(?))) /* arrays */`;
const SCAN_PG = `SELECT note_id, vector FROM note_vectors WHERE agent_id = $1 AND model = $2
  AND ($3::text[] IS NULL OR note_id = ANY($3::text[]))`;

/**
 * The JavaScript path: every vector of the range read and compared (no sqlite-vec, or it refused;
 * always on PostgreSQL, with or without pgvector: a note scope is small, and exact).
 */
function* scan(q: NoteVectorQuery, ids: readonly string[] | undefined): Program<NoteVectorHit[]> {
  const list = ids === undefined ? null : JSON.stringify(ids);
  const rows = yield* arrays(
    perDialect(
      raw(SCAN, q.agentId, q.model, list, list),
      raw(SCAN_PG, q.agentId, q.model, ids === undefined ? null : [...ids]),
    ),
  );
  return rows
    .map((r) => ({ noteId: r[0] as string, cosine: cosineOf(q.query, blobToVector(r[1] as Buffer)) }))
    .sort(byCosine);
}

/** The sqlite-vec path (SQLite only): cosine distances computed in SQLite, no blob copied out. */
function* scanInSqlite(q: NoteVectorQuery, ids: string | null, k: number): Program<NoteVectorHit[]> {
  const distance = '1 - vec_distance_cosine(v.vector, ?) AS c';
  // Given ids, the lookups start from them (the primary key), not from the agent's whole range.
  const query =
    ids === null
      ? raw(
          `SELECT v.note_id, ${distance} FROM note_vectors AS v
           WHERE v.agent_id = ? AND v.model = ? AND v.dimensions = ?
           ORDER BY c DESC, v.note_id LIMIT ? /* arrays */`,
          blobOf(q.query),
          q.agentId,
          q.model,
          q.query.length,
          k,
        )
      : raw(
          `SELECT v.note_id, ${distance} FROM json_each(?) AS j CROSS JOIN note_vectors AS v
           WHERE v.note_id = j.value AND v.model = ? AND v.agent_id = ? AND v.dimensions = ?
           ORDER BY c DESC, v.note_id LIMIT ? /* arrays */`,
          blobOf(q.query),
          ids,
          q.model,
          q.agentId,
          q.query.length,
          k,
        );
  return (yield* arrays(query)).map((r) => ({ noteId: r[0] as string, cosine: r[1] as number }));
}

function* search(q: NoteVectorQuery, ids: readonly string[] | undefined, k: number): Program<NoteVectorHit[]> {
  if (q.query.every((x) => x === 0)) return [];
  if (q.vectorAvailable) {
    try {
      return yield* scanInSqlite(q, ids === undefined ? null : JSON.stringify(ids), k);
    } catch {
      // A vector sqlite-vec refuses (a zero vector, a damaged blob): the exact scan below answers alike.
    }
  }
  return (yield* scan(q, ids)).slice(0, k);
}

/**
 * The `k` notes of the agent nearest to the query for one model, best first (ties by id), among
 * `within` when given: an exact scan of the agent's range of `note_vectors_agent_model`, in SQLite
 * with sqlite-vec, else in JavaScript. Notes are working memory (thousands per agent), so an exact
 * scan is about as cheap as an index probe would be, and exact; no vector index is kept for them.
 */
export function nearestNoteVectors(
  sql: SqlExecutor,
  q: NoteVectorQuery,
  k: number,
  within?: readonly string[],
): NoteVectorHit[] {
  return runSqliteProgram(sql, nearestNoteVectorsProgram(q, k, within));
}

/** {@link nearestNoteVectors} as a program (both dialects; PostgreSQL compares in JavaScript). */
export function* nearestNoteVectorsProgram(
  q: NoteVectorQuery,
  k: number,
  within?: readonly string[],
): Program<NoteVectorHit[]> {
  return yield* search(q, within, k);
}

/** The cosine of each of these notes (those with a vector of the model) to the query. */
export function noteVectorCosines(sql: SqlExecutor, q: NoteVectorQuery, ids: readonly string[]): NoteVectorHit[] {
  return runSqliteProgram(sql, noteVectorCosinesProgram(q, ids));
}

/** {@link noteVectorCosines} as a program (both dialects). */
export function* noteVectorCosinesProgram(q: NoteVectorQuery, ids: readonly string[]): Program<NoteVectorHit[]> {
  return ids.length === 0 ? [] : yield* search(q, ids, ids.length);
}
