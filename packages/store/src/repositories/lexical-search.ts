import { type SqlExecutor, raw } from '../internal/sql.js';
import type { MemoryType } from '../schema/memories.js';

export interface LexicalFilters {
  readonly types?: readonly MemoryType[] | undefined;
  /** Every listed tag must be on the memory. */
  readonly tags?: readonly string[] | undefined;
  readonly project?: string | undefined;
  /** created_at ≥ since (epoch ms). */
  readonly since?: number | undefined;
  /** created_at < until (epoch ms). */
  readonly until?: number | undefined;
}

export interface LexicalHit {
  readonly seq: number;
  readonly id: string;
  readonly content: string;
  readonly type: MemoryType;
  readonly tags: string;
  readonly project: string | null;
  readonly importance: number;
  readonly pinned: 0 | 1;
  readonly created_at: number;
  /** bm25(): lower is better; negative for matches. */
  readonly bm25: number;
}

// Filters shared by both query shapes: absent filters bind NULL and drop out, so each shape is one
// cached statement. The agent, liveness and expiry conditions sit in the step that reads rows, so
// no other scope's content is ever read into a result.
const FILTERS = `
    m.agent_id = ?
    AND m.is_deleted = 0
    AND (m.expires_at IS NULL OR m.expires_at > ?)
    AND (? IS NULL OR m.type IN (SELECT value FROM json_each(?)))
    AND (? IS NULL OR m.project = ?)
    AND (? IS NULL OR m.created_at >= ?)
    AND (? IS NULL OR m.created_at < ?)
    AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS wanted
          WHERE wanted.value NOT IN (SELECT value FROM json_each(m.tags))))`;

const COLUMNS = 'm.seq, m.id, m.content, m.type, m.tags, m.project, m.importance, m.pinned, m.created_at';

// Phase 1 ranks FTS rowids alone (no join): joining every match to its row before sorting doubled
// the cost of broad OR queries at 100k memories.
const TOP_ROWIDS = `SELECT rowid AS seq, bm25(memories_fts) AS bm25 FROM memories_fts WHERE memories_fts MATCH ? ORDER BY bm25, rowid LIMIT ?`;
// CROSS JOIN fixes the loop order: without it the planner scanned the agent's whole index and
// probed the JSON array per row (100k × 64 at 100k memories) instead of 64 primary-key lookups.
export const ROWS_FOR_ROWIDS = `
  SELECT ${COLUMNS}, top.value ->> '$[1]' AS bm25
  FROM json_each(?) AS top
  CROSS JOIN memories AS m ON m.seq = top.value ->> '$[0]'
  WHERE ${FILTERS}`;
// Phase 2 (only when phase 1 cannot prove its answer complete): the filtered join over every match.
const FULL_SEARCH = `
  SELECT ${COLUMNS}, bm25(memories_fts) AS bm25
  FROM memories_fts
  JOIN memories AS m ON m.seq = memories_fts.rowid
  WHERE memories_fts MATCH ? AND ${FILTERS}
  ORDER BY bm25, m.seq
  LIMIT ?`;

/** How many FTS rowids phase 1 ranks before applying scope and filters. */
const probeSize = (limit: number): number => Math.max(64, limit * 4);

/**
 * BM25 search over one agent's live memories. `match` must come from {@link buildFtsMatch}.
 *
 * Two phases: rank the top FTS rowids without touching rows, then read and filter just those. When
 * at least `limit` of them pass the filters, they are exactly the filtered top `limit` (every
 * unranked match scores worse); otherwise — another agent's memories crowd the top, or filters are
 * narrow — the full filtered query runs.
 */
export function searchMemoriesLexical(
  sql: SqlExecutor,
  params: { agentId: string; match: string; filters: LexicalFilters; now: number; limit: number },
): LexicalHit[] {
  const f = params.filters;
  const types = f.types && f.types.length > 0 ? JSON.stringify(f.types) : null;
  const tags = f.tags && f.tags.length > 0 ? JSON.stringify(f.tags) : null;
  const project = f.project ?? null;
  const since = f.since ?? null;
  const until = f.until ?? null;
  const filterParams = [params.agentId, params.now, types, types, project, project, since, since, until, until, tags, tags];

  const probe = probeSize(params.limit);
  const top = sql.all<{ seq: number; bm25: number }>(raw(TOP_ROWIDS, params.match, probe));
  const pairs = JSON.stringify(top.map((t) => [t.seq, t.bm25]));
  const rows = sql.all<LexicalHit>(raw(ROWS_FOR_ROWIDS, pairs, ...filterParams));
  if (rows.length >= params.limit || top.length < probe) {
    return rows.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
  return sql.all<LexicalHit>(raw(FULL_SEARCH, params.match, ...filterParams, params.limit));
}
