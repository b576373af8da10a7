import type { QueryTerms } from '../fts-query.js';
import type { SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { TranscriptRole } from '../schema/transcripts.js';
import { firstDepth } from './lexical-search.js';
import { rankScopedTextProgram } from './scoped-text-search.js';

export interface TranscriptHit {
  readonly session_key: string;
  readonly seq: number;
  readonly role: TranscriptRole;
  readonly content: string;
  readonly at: number | null;
  readonly bm25: number;
}

const TURNS_FOR_ROWS = `
  SELECT u.session_key, u.seq, u.role, u.content, u.at, top.value ->> '$[1]' AS bm25
  FROM json_each(?) AS top
  CROSS JOIN session_transcript_turns AS u ON u.seq = top.value ->> '$[0]'
  JOIN session_transcripts t ON t.agent_id = u.agent_id AND t.session_key = u.session_key
  WHERE u.agent_id = ? AND (? = 0 OR t.completed_at IS NOT NULL)`;
// The scores are attached in JavaScript from the ranking (the same numbers SQLite reads back from JSON).
const TURNS_FOR_ROWS_POSTGRES = `
  SELECT u.session_key, u.seq, u.role, u.content, u.at
  FROM session_transcript_turns AS u
  JOIN session_transcripts t ON t.agent_id = u.agent_id AND t.session_key = u.session_key
  WHERE u.seq = ANY($1::bigint[]) AND u.agent_id = $2 AND ($3::integer = 0 OR t.completed_at IS NOT NULL)`;

/**
 * BM25 over one agent's transcript turns matching any of `terms`, from that agent's own statistics
 * (the scoped text index): other agents' turns change neither scores nor order. `completedOnly`
 * keeps to completed sessions. `bm25` is minus the score (lower is better), as FTS5's was.
 */
export function searchTranscriptTurns(
  sql: SqlExecutor,
  params: { agentId: string; terms: QueryTerms; completedOnly: boolean; limit: number },
): TranscriptHit[] {
  return runSqliteProgram(sql, searchTranscriptTurnsProgram(params));
}

/**
 * {@link searchTranscriptTurns} as a program: the ranking is the same program on both dialects
 * (the same postings, statistics and arithmetic), so SQLite and PostgreSQL return the same turns in
 * the same order with the same scores.
 */
export function* searchTranscriptTurnsProgram(params: {
  agentId: string;
  terms: QueryTerms;
  completedOnly: boolean;
  limit: number;
}): Program<TranscriptHit[]> {
  const completed = params.completedOnly ? 1 : 0;
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = yield* rankScopedTextProgram('turn', params.agentId, params.terms.tokens, { depth });
    const pairs = ranking.rows.map((r) => [r.row, -r.score] as const);
    const scores = new Map(pairs);
    const rows = yield* all<Omit<TranscriptHit, 'bm25'> & { bm25?: number }>(
      perDialect(
        { sql: TURNS_FOR_ROWS, parameters: [JSON.stringify(pairs), params.agentId, completed] },
        { sql: TURNS_FOR_ROWS_POSTGRES, parameters: [pairs.map((p) => p[0]), params.agentId, completed] },
      ),
    );
    const found: TranscriptHit[] = rows.map((r) => ({ ...r, bm25: r.bm25 ?? (scores.get(r.seq) as number) }));
    // Enough passed (completed sessions only, when asked), or every match was ranked: done.
    if (found.length >= params.limit || ranking.complete)
      return found.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
}
