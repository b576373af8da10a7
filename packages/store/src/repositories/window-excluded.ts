import type { QueryTerms } from '../fts-query.js';
import type { SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { queryIndexTerms } from '../text-terms.js';
import {
  MEMORY_FILTERS_SQL,
  MEMORY_FILTERS_SQL_POSTGRES,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';

const OLDEST_MEMORY = 'SELECT min(created_at) AS oldest FROM memories WHERE agent_id = ?';

// Distinct rows of the agent's postings for the query's terms, then their memory rows filtered.
const OLDER_MATCHES = `
  SELECT m.id
  FROM (SELECT DISTINCT p.row FROM text_scopes AS s
        JOIN text_postings AS p ON p.scope = s.scope AND p.term IN (SELECT value FROM json_each(?))
        WHERE s.corpus = 'memory' AND s.agent_id = ?) AS hit
  CROSS JOIN memories AS m ON m.seq = hit.row
  WHERE ${MEMORY_FILTERS_SQL} AND m.created_at < ? AND m.pinned = 0
  LIMIT ?`;
const OLDER_MATCHES_POSTGRES = portable(`
  SELECT m.id
  FROM (SELECT DISTINCT p.row FROM text_scopes AS s
        JOIN text_postings AS p ON p.scope = s.scope AND p.term = ANY(?::text[])
        WHERE s.corpus = 'memory' AND s.agent_id = ?) AS hit
  CROSS JOIN memories AS m
  WHERE m.seq = hit.row AND ${MEMORY_FILTERS_SQL_POSTGRES} AND m.created_at < ?::bigint AND m.pinned = 0
  LIMIT ?`).postgres.sql;

/** What a search window hid: the query, the filters and the window's start. */
export interface WindowExcludedQuery {
  readonly agentId: string;
  readonly terms: QueryTerms;
  readonly filters: MemoryFilters;
  readonly windowStart: number;
  readonly now: number;
  readonly cap: number;
}

/**
 * Ids of the agent's live memories that match any of `terms` and pass `filters` but were created
 * before `windowStart` (unpinned: pinned memories are always in the window): what a search window
 * hid. At most `cap`. Costs one index probe when the agent has nothing older than the window.
 */
export function findMatchesBeforeWindow(sql: SqlExecutor, params: WindowExcludedQuery): string[] {
  return runSqliteProgram(sql, findMatchesBeforeWindowProgram(params));
}

/** {@link findMatchesBeforeWindow} as a program (both dialects). */
export function* findMatchesBeforeWindowProgram(params: WindowExcludedQuery): Program<string[]> {
  const oldest = (yield* get<{ oldest: number | null }>(portable(OLDEST_MEMORY, params.agentId)))?.oldest;
  if (oldest === null || oldest === undefined || oldest >= params.windowStart) return [];
  const terms = queryIndexTerms(params.terms.tokens);
  if (terms.length === 0) return [];
  const filters = { ...params.filters, windowStart: undefined };
  const rest = [...memoryFilterParams(params.agentId, params.now, filters), params.windowStart, params.cap];
  const rows = yield* all<{ id: string }>(
    perDialect(
      { sql: OLDER_MATCHES, parameters: [JSON.stringify(terms), params.agentId, ...rest] },
      { sql: OLDER_MATCHES_POSTGRES, parameters: [terms, params.agentId, ...rest] },
    ),
  );
  return rows.map((r) => r.id);
}
