import type { QueryTerms } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Dialect, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { rankScopedTextProgram } from './scoped-text-search.js';
import { indexTextRowsProgram, unindexTextRowsProgram } from './text-index-writes.js';

/** Stores prospective hints for a memory (duplicates ignored). Returns how many were new. */
export function insertHints(
  sql: SqlExecutor,
  agentId: string,
  memoryId: string,
  hints: readonly string[],
  now: number,
): number {
  return runSqliteProgram(sql, insertHintsProgram('sqlite', agentId, memoryId, hints, now));
}

/**
 * {@link insertHints} as a program. On SQLite the hint index follows by trigger; on PostgreSQL the
 * program indexes the new hints itself.
 */
export function* insertHintsProgram(
  dialect: Dialect,
  agentId: string,
  memoryId: string,
  hints: readonly string[],
  now: number,
): Program<number> {
  if (dialect === 'sqlite') {
    let added = 0;
    for (const hint of hints) {
      added += (yield* run(
        portable(
          'INSERT OR IGNORE INTO memory_hints (agent_id, memory_id, hint, created_at) VALUES (?, ?, ?, ?)',
          agentId,
          memoryId,
          hint,
          now,
        ),
      )).changes;
    }
    return added;
  }
  const added: Array<{ row: number; text: string }> = [];
  for (const hint of hints) {
    const row = yield* get<{ seq: number }>(
      portable(
        `INSERT INTO memory_hints (agent_id, memory_id, hint, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING seq`,
        agentId,
        memoryId,
        hint,
        now,
      ),
    );
    if (row) added.push({ row: row.seq, text: hint });
  }
  yield* indexTextRowsProgram('hint', agentId, added);
  return added.length;
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
  return runSqliteProgram(sql, deleteHintsProgram('sqlite', agentId, memoryId));
}

/**
 * {@link deleteHints} as a program. On SQLite the hint index follows by trigger; on PostgreSQL the
 * program takes the deleted hints out of it.
 */
export function* deleteHintsProgram(dialect: Dialect, agentId: string, memoryId: string): Program<number> {
  if (dialect === 'sqlite')
    return (yield* run(portable('DELETE FROM memory_hints WHERE agent_id = ? AND memory_id = ?', agentId, memoryId)))
      .changes;
  const gone = yield* all<{ seq: number; hint: string }>(
    portable('DELETE FROM memory_hints WHERE agent_id = ? AND memory_id = ? RETURNING seq, hint', agentId, memoryId),
  );
  yield* unindexTextRowsProgram(
    'hint',
    agentId,
    gone.map((h) => ({ row: h.seq, text: h.hint })),
  );
  return gone.length;
}

const HINT_MEMORIES = `
  SELECT top.value ->> '$[0]' AS seq, h.memory_id AS memoryId
  FROM json_each(?) AS top
  CROSS JOIN memory_hints AS h ON h.seq = top.value ->> '$[0]'
  WHERE h.agent_id = ?`;
const HINT_MEMORIES_POSTGRES = `SELECT h.seq, h.memory_id AS "memoryId" FROM memory_hints AS h
  WHERE h.seq = ANY($1::bigint[]) AND h.agent_id = $2`;

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
  return runSqliteProgram(sql, searchHintsProgram(agentId, terms, limit));
}

/** {@link searchHints} as a program (both dialects, the same scores on each). */
export function* searchHintsProgram(
  agentId: string,
  terms: QueryTerms,
  limit: number,
): Program<Array<{ memoryId: string; bm25: number }>> {
  const ranking = yield* rankScopedTextProgram('hint', agentId, terms.tokens, { depth: limit * 5 });
  const top = ranking.rows.slice(0, limit * 5);
  if (top.length === 0) return [];
  const memoryOf = new Map<number, string>();
  const rows = yield* all<{ seq: number; memoryId: string }>(
    perDialect(
      { sql: HINT_MEMORIES, parameters: [JSON.stringify(top.map((r) => [r.row])), agentId] },
      { sql: HINT_MEMORIES_POSTGRES, parameters: [top.map((r) => r.row), agentId] },
    ),
  );
  for (const r of rows) memoryOf.set(Number(r.seq), r.memoryId);
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
