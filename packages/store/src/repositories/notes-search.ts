import { raw, type SqlExecutor } from '../internal/sql.js';
import { blobToVector } from './embeddings.js';
import { rankScopedText, type ScoredRow } from './scoped-text-search.js';

/**
 * Notes of the agent ranked by BM25 over their title and content, from the agent's own statistics
 * (the notes' scoped text index): another agent's notes change neither the scores nor the order.
 * Rows are note `seq`s; `depth` is the number of rows wanted.
 */
export function rankNotesByText(
  sql: SqlExecutor,
  agentId: string,
  tokens: readonly string[],
  depth: number,
): ScoredRow[] {
  return [...rankScopedText(sql, 'note', agentId, tokens, { depth }).rows];
}

/** Stores a note's vector for a model, replacing the one it had. */
export function upsertNoteVector(
  sql: SqlExecutor,
  row: {
    noteId: string;
    agentId: string;
    model: string;
    contentHash: string;
    vector: Float32Array;
    now: number;
  },
): void {
  sql.run(
    raw(
      `INSERT INTO note_vectors (note_id, agent_id, model, dimensions, content_hash, vector, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (note_id, model) DO UPDATE SET dimensions = excluded.dimensions,
         content_hash = excluded.content_hash, vector = excluded.vector, created_at = excluded.created_at`,
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

/** One stored note vector. */
export interface NoteVector {
  readonly noteId: string;
  readonly contentHash: string;
  /** A view of the stored blob: read-only. */
  readonly vector: Float32Array;
}

/**
 * Every vector of the agent's notes for one model: an exact scan of one range of
 * `note_vectors_agent_model`. Notes are working memory (thousands per agent at most), so an exact
 * scan costs about what a vector index probe would, and is exact.
 */
export function noteVectors(sql: SqlExecutor, agentId: string, model: string): NoteVector[] {
  return sql
    .arrays(
      raw(
        'SELECT note_id, content_hash, vector FROM note_vectors WHERE agent_id = ? AND model = ? /* arrays */',
        agentId,
        model,
      ),
    )
    .map((r) => ({ noteId: r[0] as string, contentHash: r[1] as string, vector: blobToVector(r[2] as Buffer) }));
}
