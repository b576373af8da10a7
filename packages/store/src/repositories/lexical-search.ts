import type { QueryTerms, TermMatching } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';
import { rankScopedText } from './scoped-text-search.js';

export interface LexicalHit extends MemoryCandidateRow {
  /** Minus the scoped BM25 score: lower is better; negative for matches. */
  readonly bm25: number;
}

const FILTERS = MEMORY_FILTERS_SQL;
const COLUMNS = MEMORY_CANDIDATE_COLUMNS;

// The ranked rows' [seq, -score] pairs drive the loop; CROSS JOIN fixes that order: without it the
// planner scanned the agent's whole index and probed the JSON array per row.
export const ROWS_FOR_ROWIDS = `
  SELECT ${COLUMNS}, top.value ->> '$[1]' AS bm25
  FROM json_each(?) AS top
  CROSS JOIN memories AS m ON m.seq = top.value ->> '$[0]'
  WHERE ${FILTERS}`;

/**
 * Ranked rows read first: the limit and a margin for rows the filters drop (deeper rankings follow
 * when too many are). A small depth lets the ranking stop before reading common words in full.
 */
export const firstDepth = (limit: number): number => Math.max(limit + 16, Math.ceil(limit * 1.5));

/**
 * BM25 search over one agent's live memories for `terms`: rows matching every term
 * (`matching: 'all'`) or any term (`'any'`). No terms, no rows.
 *
 * Scores come from the agent's own statistics in the scoped text index ({@link rankScopedText}):
 * what other agents store changes neither the scores nor the order. The top of the ranking is read
 * with scope and filters applied; when filters leave fewer than `limit`, a deeper ranking is read.
 */
export function searchMemoriesLexical(
  sql: SqlExecutor,
  params: {
    agentId: string;
    terms: QueryTerms;
    matching: TermMatching;
    filters: MemoryFilters;
    now: number;
    limit: number;
  },
): LexicalHit[] {
  const filterParams = memoryFilterParams(params.agentId, params.now, params.filters);
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = rankScopedText(sql, 'memory', params.agentId, params.terms.tokens, {
      matching: params.matching,
      depth,
    });
    const pairs = JSON.stringify(ranking.rows.map((r) => [r.row, -r.score]));
    const rows = sql.all<LexicalHit>(raw(ROWS_FOR_ROWIDS, pairs, ...filterParams));
    // Enough passed the filters, or every match was ranked: done. Otherwise rank deeper.
    if (rows.length >= params.limit || ranking.complete)
      return rows.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
}
