import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { MemoryRow, MemoryType } from '../schema/memories.js';

/** A page request over one scope's memories, newest first. */
export interface MemoryListQuery {
  readonly agentId: string;
  readonly types?: readonly MemoryType[] | undefined;
  /** Every listed tag must be on the memory. */
  readonly tags?: readonly string[] | undefined;
  /** created_at ≥ since. */
  readonly since?: number | undefined;
  /** created_at < until. */
  readonly until?: number | undefined;
  /** Forgotten and expired memories too (live ones only otherwise). */
  readonly includeForgotten?: boolean | undefined;
  /** The (created_at, seq) of the last row of the previous page. */
  readonly after?: { readonly createdAt: number; readonly seq: number } | undefined;
  readonly limit: number;
  readonly now: number;
}

// Keyset paging on (created_at, seq) descending: the (agent_id, created_at) index holds seq (the
// rowid) too, so a page is one index range however deep it is (the keyset bound is a separate
// statement, so the planner sees it as a range). Absent filters bind NULL and drop out.
const PAGE = (keyset: boolean) => `
  SELECT m.* FROM memories AS m
  WHERE m.agent_id = ?${keyset ? ' AND (m.created_at, m.seq) < (?, ?)' : ''}
    AND (? = 1 OR (m.is_deleted = 0 AND (m.expires_at IS NULL OR m.expires_at > ?)))
    AND (? IS NULL OR m.type IN (SELECT value FROM json_each(?)))
    AND (? IS NULL OR m.created_at >= ?)
    AND (? IS NULL OR m.created_at < ?)
    AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS wanted
          WHERE wanted.value NOT IN (SELECT value FROM json_each(m.tags))))
  ORDER BY m.created_at DESC, m.seq DESC
  LIMIT ?`;

const PAGE_FIRST = PAGE(false);
const PAGE_AFTER = PAGE(true);

// The same page on PostgreSQL, with the same parameters: typed NULL tests, JSON lists through jsonb.
const PAGE_POSTGRES = (keyset: boolean) =>
  portable(`
  SELECT m.* FROM memories AS m
  WHERE m.agent_id = ?${keyset ? ' AND (m.created_at, m.seq) < (?::bigint, ?::bigint)' : ''}
    AND (?::integer = 1 OR (m.is_deleted = 0 AND (m.expires_at IS NULL OR m.expires_at > ?::bigint)))
    AND (?::text IS NULL OR m.type IN (SELECT jsonb_array_elements_text(?::jsonb)))
    AND (?::bigint IS NULL OR m.created_at >= ?)
    AND (?::bigint IS NULL OR m.created_at < ?)
    AND (?::text IS NULL OR m.tags::jsonb @> ?::jsonb)
  ORDER BY m.created_at DESC, m.seq DESC
  LIMIT ?`).postgres.sql;
const PAGE_FIRST_POSTGRES = PAGE_POSTGRES(false);
const PAGE_AFTER_POSTGRES = PAGE_POSTGRES(true);

/** One page of a scope's memories, newest first (rows with their seq, for the next cursor). */
export function listMemoryPage(sql: SqlExecutor, q: MemoryListQuery): MemoryRow[] {
  return runSqliteProgram(sql, listMemoryPageProgram(q));
}

/** {@link listMemoryPage} as a program (both dialects; PostgreSQL rows have no `fts_scope`). */
export function* listMemoryPageProgram(q: MemoryListQuery): Program<MemoryRow[]> {
  const types = q.types && q.types.length > 0 ? JSON.stringify(q.types) : null;
  const tags = q.tags && q.tags.length > 0 ? JSON.stringify(q.tags) : null;
  const after = q.after;
  const parameters = [
    q.agentId,
    ...(after ? [after.createdAt, after.seq] : []),
    q.includeForgotten ? 1 : 0,
    q.now,
    types,
    types,
    q.since ?? null,
    q.since ?? null,
    q.until ?? null,
    q.until ?? null,
    tags,
    tags,
    q.limit,
  ];
  return yield* all<MemoryRow>(
    perDialect(
      { sql: after ? PAGE_AFTER : PAGE_FIRST, parameters },
      { sql: after ? PAGE_AFTER_POSTGRES : PAGE_FIRST_POSTGRES, parameters },
    ),
  );
}
