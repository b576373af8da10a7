import type { QueryTerms } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { queryIndexTerms } from '../text-terms.js';
import { MEMORY_FILTERS_SQL, type MemoryFilters, memoryFilterParams } from './memory-filters.js';

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

/**
 * Ids of the agent's live memories that match any of `terms` and pass `filters` but were created
 * before `windowStart` (unpinned: pinned memories are always in the window): what a search window
 * hid. At most `cap`. Costs one index probe when the agent has nothing older than the window.
 */
export function findMatchesBeforeWindow(
  sql: SqlExecutor,
  params: { agentId: string; terms: QueryTerms; filters: MemoryFilters; windowStart: number; now: number; cap: number },
): string[] {
  const oldest = sql.get<{ oldest: number | null }>(raw(OLDEST_MEMORY, params.agentId))?.oldest;
  if (oldest === null || oldest === undefined || oldest >= params.windowStart) return [];
  const terms = queryIndexTerms(params.terms.tokens);
  if (terms.length === 0) return [];
  const filters = { ...params.filters, windowStart: undefined };
  return sql
    .all<{ id: string }>(
      raw(
        OLDER_MATCHES,
        JSON.stringify(terms),
        params.agentId,
        ...memoryFilterParams(params.agentId, params.now, filters),
        params.windowStart,
        params.cap,
      ),
    )
    .map((r) => r.id);
}
