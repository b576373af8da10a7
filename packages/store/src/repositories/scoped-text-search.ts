import type { SqlExecutor } from '../internal/sql.js';
import { arrays, get, type Program, perDialect, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { queryIndexTerms } from '../text-terms.js';

/**
 * What the scoped text indexes hold: memories, transcript turns, hints (migration 13's tables) and
 * working notes (migration 15's own tables, same scheme). One scope per agent each.
 */
export type TextCorpus = 'memory' | 'turn' | 'hint' | 'note';

/** Okapi BM25 parameters (the usual defaults, as FTS5's bm25()). */
const K1 = 1.2;
const B = 0.75;

/** The statements of one index's tables (the names are fixed here, never input). */
function statements(scopes: string, postings: string) {
  return {
    scope: `SELECT scope, docs, tokens FROM ${scopes} WHERE corpus = ? AND agent_id = ?`,
    // Marked raw: read as arrays (row, tf, len), no object per posting.
    postings: `SELECT row, tf, len FROM ${postings} WHERE scope = ? AND term = ? /* arrays */`,
    docFrequency: `SELECT count(*) AS n FROM ${postings} WHERE scope = ? AND term = ?`,
    postingsOfRows: `SELECT row, tf, len FROM ${postings} WHERE scope = ? AND term = ? AND row IN (SELECT value FROM json_each(?)) /* arrays */`,
    postingsOfRowsPostgres: `SELECT row, tf, len FROM ${postings} WHERE scope = $1 AND term = $2 AND row = ANY($3::bigint[])`,
  };
}
const SHARED = statements('text_scopes', 'text_postings');
const NOTES = statements('note_text_scopes', 'note_text_postings');

/** One row of a scoped BM25 ranking. */
export interface ScoredRow {
  /** The indexed table's `seq`. */
  readonly row: number;
  /** BM25 over the agent's own statistics: higher is better. */
  readonly score: number;
  /** How many of the query's distinct terms the row contains. */
  readonly matched: number;
}

/** A scoped ranking, best first. */
export interface ScopedRanking {
  readonly rows: readonly ScoredRow[];
  /** Distinct index terms the query searched for (a row matching all of them has `matched` equal to this). */
  readonly terms: number;
  /** True when `rows` holds every matching row; false when it is the exact top `depth` only (ask deeper for more). */
  readonly complete: boolean;
}

export interface RankOptions {
  /** `all`: only rows containing every term. @default 'any' */
  readonly matching?: 'all' | 'any';
  /** Rows wanted: the ranking may stop once the top `depth` are certain. @default every row */
  readonly depth?: number;
  /**
   * Score only these rows (point lookups per term), still from the whole scope's statistics, so each
   * keeps the score it has in the full ranking: for a small set chosen by another index (an entity's notes).
   */
  readonly rows?: readonly number[];
}

/** The k-th largest score (k ≥ 1), or -Infinity when there are fewer. */
function kthLargest(scores: ReadonlyMap<number, number>, k: number): number {
  if (scores.size < k) return Number.NEGATIVE_INFINITY;
  const values = Float64Array.from(scores.values()).sort();
  return values[values.length - k] as number;
}

interface Term {
  readonly term: string;
  readonly df: number;
  readonly idf: number;
}

/**
 * BM25 of the rows in one agent's scope of `corpus` that contain any (or all) of the query tokens,
 * from that scope's statistics alone (document count, average length, document frequencies):
 * another agent's rows change neither the scores nor the order. Ordered by score, then row
 * (insertion order).
 *
 * With `depth`, it stops early when the top `depth` are certain (MaxScore): terms are read rarest
 * first; once the `depth`-th best score of the rows found so far (completed by point lookups of the
 * other terms) beats the most that rows containing only unread terms could score, the rest cannot
 * enter. Common words are then never read in full.
 */
export function rankScopedText(
  sql: SqlExecutor,
  corpus: TextCorpus,
  agentId: string,
  tokens: readonly string[],
  options: RankOptions = {},
): ScopedRanking {
  return runSqliteProgram(sql, rankScopedTextProgram(corpus, agentId, tokens, options));
}

/**
 * {@link rankScopedText} as a program: the same statistics, reading order and arithmetic on both
 * dialects, so SQLite and PostgreSQL give the same rows the same scores (bit for bit) for the same
 * indexed text. (Working notes' corpus has no PostgreSQL tables yet.)
 */
export function* rankScopedTextProgram(
  corpus: TextCorpus,
  agentId: string,
  tokens: readonly string[],
  options: RankOptions = {},
): Program<ScopedRanking> {
  const q = corpus === 'note' ? NOTES : SHARED;
  const distinct = queryIndexTerms(tokens);
  const none = { rows: [], terms: distinct.length, complete: true };
  const scope = yield* get<{ scope: number; docs: number; tokens: number }>(portable(q.scope, corpus, agentId));
  if (!scope || scope.docs <= 0 || distinct.length === 0) return none;
  const scopeId = scope.scope;
  const n = scope.docs;
  const avgdl = Math.max(1, scope.tokens / n);
  const terms: Term[] = [];
  for (const term of distinct) {
    const df = (yield* get<{ n: number }>(portable(q.docFrequency, scopeId, term)))?.n ?? 0;
    terms.push({ term, df, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) });
  }
  // Parts are added in reading order (rarest term first, then by term): the same order whether the
  // ranking stops early or not, so a row's score is the same number either way.
  const scores = new Map<number, number>();
  const matched = new Map<number, number>();
  const add = (t: Term, postings: unknown[][]) => {
    for (const p of postings) {
      const row = p[0] as number;
      const tf = p[1] as number;
      const len = p[2] as number;
      scores.set(row, (scores.get(row) ?? 0) + (t.idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avgdl)));
      matched.set(row, (matched.get(row) ?? 0) + 1);
    }
  };
  function* lookup(t: Term, rows: readonly number[]): Program<unknown[][]> {
    if (rows.length === 0) return [];
    return yield* arrays(
      perDialect(
        { sql: q.postingsOfRows, parameters: [scopeId, t.term, JSON.stringify(rows)] },
        { sql: q.postingsOfRowsPostgres, parameters: [scopeId, t.term, rows] },
      ),
    );
  }
  const postingsOf = (t: Term) => arrays(portable(q.postings, scopeId, t.term));
  const depth = options.depth;
  /** The ranking of `rows` (every found row by default): the top `depth` when a depth is asked for. */
  const finish = (exhaustive: boolean, rows: Iterable<number> = scores.keys()): ScopedRanking => {
    const out: ScoredRow[] = [];
    const all = options.matching === 'all';
    for (const row of rows) {
      const m = matched.get(row) ?? 0;
      if (all && m < distinct.length) continue;
      out.push({ row, score: scores.get(row) ?? 0, matched: m });
    }
    const head = depth === undefined || out.length <= depth ? out : topByScore(out, depth);
    head.sort((a, b) => b.score - a.score || a.row - b.row);
    return { rows: head, terms: distinct.length, complete: exhaustive && head.length === out.length };
  };

  const present = terms.filter((t) => t.df > 0);
  if (options.rows) {
    const rows = options.rows;
    // The same reading order as below (rarest first), so the sums are the same numbers.
    for (const t of [...present].sort((a, b) => b.idf - a.idf || (a.term < b.term ? -1 : 1)))
      add(t, yield* lookup(t, rows));
    return finish(true);
  }
  // Rarest (highest bound) first.
  const queue = [...present].sort((a, b) => b.idf - a.idf || (a.term < b.term ? -1 : 1));
  if (options.matching === 'all') {
    if (present.length < distinct.length) return none;
    // Every match contains the rarest term: read it, then look the others up for its rows only.
    const [rarest, ...others] = [...present].sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
    if (!rarest) return none;
    add(rarest, yield* postingsOf(rarest));
    for (const t of others) add(t, yield* lookup(t, [...scores.keys()]));
    return finish(true);
  }

  const bound = (t: Term) => t.idf * (K1 + 1);
  let rest = queue.reduce((sum, t) => sum + bound(t), 0);
  for (let i = 0; i < queue.length; i++) {
    const t = queue[i] as Term;
    add(t, yield* postingsOf(t));
    rest -= bound(t);
    if (i === queue.length - 1 || depth === undefined || scores.size < depth) continue;
    // The depth-th best score so far is a floor for the final top `depth` (scores only grow as
    // terms are added). A row not yet found scores at most `rest`: below the floor, it cannot enter.
    const floor = kthLargest(scores, depth);
    if (!(rest < floor)) continue;
    // Only rows that could still reach the floor need the unread terms: look those up, score exactly.
    const open: number[] = [];
    for (const [row, score] of scores) if (score + rest >= floor) open.push(row);
    for (const u of queue.slice(i + 1)) add(u, yield* lookup(u, open));
    return finish(false, open);
  }
  return finish(true);
}

/** The `k` rows with the highest scores (ties: lower row), unordered. */
function topByScore(rows: ScoredRow[], k: number): ScoredRow[] {
  const scores = Float64Array.from(rows, (r) => r.score).sort();
  const cut = scores[scores.length - k] as number;
  const above = rows.filter((r) => r.score > cut);
  const at = rows.filter((r) => r.score === cut).sort((a, b) => a.row - b.row);
  return [...above, ...at.slice(0, k - above.length)];
}
