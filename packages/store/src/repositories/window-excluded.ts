import { type QueryTerms, scopedMatch, termsMatch } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { MEMORY_FILTERS_SQL, type MemoryFilters, memoryFilterParams } from './memory-filters.js';

const OLDEST_MEMORY = 'SELECT min(created_at) AS oldest FROM memories WHERE agent_id = ?';

const OLDER_MATCHES = `
  SELECT m.id
  FROM memories_fts
  JOIN memories AS m ON m.seq = memories_fts.rowid
  WHERE memories_fts MATCH ? AND ${MEMORY_FILTERS_SQL} AND m.created_at < ? AND m.pinned = 0
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
  const termMatch = termsMatch(params.terms, 'any');
  if (termMatch === undefined) return [];
  const filters = { ...params.filters, windowStart: undefined };
  return sql
    .all<{ id: string }>(
      raw(
        OLDER_MATCHES,
        scopedMatch(params.agentId, termMatch),
        ...memoryFilterParams(params.agentId, params.now, filters),
        params.windowStart,
        params.cap,
      ),
    )
    .map((r) => r.id);
}
