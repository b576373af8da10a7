import { type QueryTerms, termsMatch } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';

/** Stores prospective hints for a memory (duplicates ignored). Returns how many were new. */
export function insertHints(
  sql: SqlExecutor,
  agentId: string,
  memoryId: string,
  hints: readonly string[],
  now: number,
): number {
  let added = 0;
  for (const hint of hints) {
    added += sql.run(
      raw(
        'INSERT OR IGNORE INTO memory_hints (agent_id, memory_id, hint, created_at) VALUES (?, ?, ?, ?)',
        agentId,
        memoryId,
        hint,
        now,
      ),
    ).changes;
  }
  return added;
}

/** The hints stored for a memory, oldest first. */
export function listHints(sql: SqlExecutor, agentId: string, memoryId: string): string[] {
  return sql
    .all<{ hint: string }>(
      raw('SELECT hint FROM memory_hints WHERE agent_id = ? AND memory_id = ? ORDER BY seq', agentId, memoryId),
    )
    .map((r) => r.hint);
}

/** Drops a memory's hints (when its content changes, the old questions no longer apply). */
export function deleteHints(sql: SqlExecutor, agentId: string, memoryId: string): number {
  return sql.run(raw('DELETE FROM memory_hints WHERE agent_id = ? AND memory_id = ?', agentId, memoryId)).changes;
}

// bm25() cannot be aggregated directly: rank hint rows first (bounded), then keep each memory's best.
const SEARCH_HINTS = `
  SELECT memoryId, min(score) AS bm25 FROM (
    SELECT h.memory_id AS memoryId, bm25(memory_hints_fts) AS score
    FROM memory_hints_fts
    JOIN memory_hints AS h ON h.seq = memory_hints_fts.rowid
    WHERE memory_hints_fts MATCH ? AND h.agent_id = ?
    ORDER BY score
    LIMIT ?)
  GROUP BY memoryId
  ORDER BY bm25, memoryId
  LIMIT ?`;

/** BM25 over one agent's hints matching any of `terms`; one row per memory with its best hint's score. */
export function searchHints(
  sql: SqlExecutor,
  agentId: string,
  terms: QueryTerms,
  limit: number,
): Array<{ memoryId: string; bm25: number }> {
  const match = termsMatch(terms, 'any');
  if (match === undefined) return [];
  return sql.all(raw(SEARCH_HINTS, match, agentId, limit * 5, limit));
}
