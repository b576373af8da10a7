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

// One statement for every filter combination: absent filters bind NULL and drop out. The agent,
// liveness and expiry conditions are applied in the same step that joins FTS hits to rows, so no
// other scope's content is ever read into the result.
const SEARCH = `
  SELECT m.id, m.content, m.type, m.tags, m.project, m.importance, m.pinned, m.created_at,
         bm25(memories_fts) AS bm25
  FROM memories_fts
  JOIN memories AS m ON m.seq = memories_fts.rowid
  WHERE memories_fts MATCH ?
    AND m.agent_id = ?
    AND m.is_deleted = 0
    AND (m.expires_at IS NULL OR m.expires_at > ?)
    AND (? IS NULL OR m.type IN (SELECT value FROM json_each(?)))
    AND (? IS NULL OR m.project = ?)
    AND (? IS NULL OR m.created_at >= ?)
    AND (? IS NULL OR m.created_at < ?)
    AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS wanted
          WHERE wanted.value NOT IN (SELECT value FROM json_each(m.tags))))
  ORDER BY bm25
  LIMIT ?`;

/** BM25 search over one agent's live memories. `match` must come from {@link buildFtsMatch}. */
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
  return sql.all<LexicalHit>(
    raw(
      SEARCH,
      params.match,
      params.agentId,
      params.now,
      types,
      types,
      project,
      project,
      since,
      since,
      until,
      until,
      tags,
      tags,
      params.limit,
    ),
  );
}
