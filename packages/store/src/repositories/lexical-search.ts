import type { QueryTerms, TermMatching } from '../fts-query.js';
import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  MEMORY_FILTERS_SQL_POSTGRES,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';
import { rankScopedTextProgram } from './scoped-text-search.js';

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

// PostgreSQL reads the ranked rows by seq; their scores are attached in JavaScript (the same numbers).
const ROWS_FOR_SEQS_POSTGRES = portable(`
  SELECT ${COLUMNS} FROM memories AS m
  WHERE m.seq = ANY(?::bigint[]) AND ${MEMORY_FILTERS_SQL_POSTGRES}`).postgres.sql;

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
export function searchMemoriesLexical(sql: SqlExecutor, params: LexicalSearch): LexicalHit[] {
  return runSqliteProgram(sql, searchMemoriesLexicalProgram(params));
}

/** A lexical search over one agent's live memories. */
export interface LexicalSearch {
  readonly agentId: string;
  readonly terms: QueryTerms;
  readonly matching: TermMatching;
  readonly filters: MemoryFilters;
  readonly now: number;
  readonly limit: number;
}

/**
 * {@link searchMemoriesLexical} as a program: on PostgreSQL the same per-agent BM25 over the same
 * postings, so both dialects return the same ids with the same scores for the same memories.
 */
export function* searchMemoriesLexicalProgram(params: LexicalSearch): Program<LexicalHit[]> {
  const filterParams = memoryFilterParams(params.agentId, params.now, params.filters);
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = yield* rankScopedTextProgram('memory', params.agentId, params.terms.tokens, {
      matching: params.matching,
      depth,
    });
    const found = yield* all<LexicalHit>(
      perDialect(
        {
          sql: ROWS_FOR_ROWIDS,
          parameters: [JSON.stringify(ranking.rows.map((r) => [r.row, -r.score])), ...filterParams],
        },
        { sql: ROWS_FOR_SEQS_POSTGRES, parameters: [ranking.rows.map((r) => r.row), ...filterParams] },
      ),
    );
    let rows = found;
    if (found.length > 0 && found[0]?.bm25 === undefined) {
      const scores = new Map(ranking.rows.map((r) => [r.row, -r.score]));
      rows = found.map((row) => ({ ...row, bm25: scores.get(row.seq) as number }));
    }
    // Enough passed the filters, or every match was ranked: done. Otherwise rank deeper.
    if (rows.length >= params.limit || ranking.complete)
      return rows.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
}
