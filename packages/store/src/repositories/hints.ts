import type { QueryTerms } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { rankScopedText } from './scoped-text-search.js';

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

const HINT_MEMORIES = `
  SELECT top.value ->> '$[0]' AS seq, h.memory_id AS memoryId
  FROM json_each(?) AS top
  CROSS JOIN memory_hints AS h ON h.seq = top.value ->> '$[0]'
  WHERE h.agent_id = ?`;

/**
 * BM25 over one agent's hints matching any of `terms` (the agent's own statistics: other agents'
 * hints do not move it); one row per memory with its best hint's score, `bm25` as minus the score.
 */
export function searchHints(
  sql: SqlExecutor,
  agentId: string,
  terms: QueryTerms,
  limit: number,
): Array<{ memoryId: string; bm25: number }> {
  const top = rankScopedText(sql, 'hint', agentId, terms.tokens, { depth: limit * 5 }).rows.slice(0, limit * 5);
  if (top.length === 0) return [];
  const memoryOf = new Map<number, string>();
  for (const r of sql.all<{ seq: number; memoryId: string }>(
    raw(HINT_MEMORIES, JSON.stringify(top.map((r) => [r.row])), agentId),
  ))
    memoryOf.set(Number(r.seq), r.memoryId);
  const best = new Map<string, number>();
  for (const r of top) {
    const memoryId = memoryOf.get(r.row);
    if (memoryId !== undefined && !best.has(memoryId)) best.set(memoryId, -r.score);
  }
  return [...best]
    .map(([memoryId, bm25]) => ({ memoryId, bm25 }))
    .sort((a, b) => a.bm25 - b.bm25 || (a.memoryId < b.memoryId ? -1 : 1))
    .slice(0, limit);
}
