import { raw, type SqlExecutor } from '../internal/sql.js';
import { queryIndexTerms } from '../text-terms.js';

/** What the scoped text index holds: memories, transcript turns, hints (one scope per agent each). */
export type TextCorpus = 'memory' | 'turn' | 'hint';

/** Okapi BM25 parameters (the usual defaults, as FTS5's bm25()). */
const K1 = 1.2;
const B = 0.75;

const SCOPE = 'SELECT scope, docs, tokens FROM text_scopes WHERE corpus = ? AND agent_id = ?';
// Marked raw: read as arrays (row, tf, len), no object per posting.
const POSTINGS = 'SELECT row, tf, len FROM text_postings WHERE scope = ? AND term = ? /* arrays */';

const DOC_FREQUENCY = 'SELECT count(*) AS n FROM text_postings WHERE scope = ? AND term = ?';
const POSTINGS_OF_ROWS =
  'SELECT row, tf, len FROM text_postings WHERE scope = ? AND term = ? AND row IN (SELECT value FROM json_each(?)) /* arrays */';

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
  /** True when `rows` holds every matching row; false when it is the exact top `depth` only. */
  readonly complete: boolean;
}

export interface RankOptions {
  /** `all`: only rows containing every term. @default 'any' */
  readonly matching?: 'all' | 'any';
  /** Rows wanted: the ranking may stop once the top `depth` are certain. @default every row */
  readonly depth?: number;
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
  const distinct = queryIndexTerms(tokens);
  const none = { rows: [], terms: distinct.length, complete: true };
  const scope = sql.get<{ scope: number; docs: number; tokens: number }>(raw(SCOPE, corpus, agentId));
  if (!scope || scope.docs <= 0 || distinct.length === 0) return none;
  const n = scope.docs;
  const avgdl = Math.max(1, scope.tokens / n);
  const part = (idf: number, tf: number, len: number) =>
    (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avgdl));
  const terms: Term[] = distinct.map((term) => {
    const df = sql.get<{ n: number }>(raw(DOC_FREQUENCY, scope.scope, term))?.n ?? 0;
    return { term, df, idf: Math.log(1 + (n - df + 0.5) / (df + 0.5)) };
  });
  // Parts are summed in the query's term order whatever order terms are read in, so a score is the
  // same number however the ranking got to it.
  const order = new Map(distinct.map((t, i) => [t, i]));
  const partsOf = new Map<number, Float64Array>();
  const add = (t: Term, postings: unknown[][]) => {
    const slot = order.get(t.term) as number;
    for (const p of postings) {
      const row = p[0] as number;
      let parts = partsOf.get(row);
      if (!parts) {
        parts = new Float64Array(distinct.length).fill(Number.NaN);
        partsOf.set(row, parts);
      }
      parts[slot] = part(t.idf, p[1] as number, p[2] as number);
    }
  };
  const lookup = (t: Term, rows: readonly number[]) =>
    rows.length === 0 ? [] : sql.arrays(raw(POSTINGS_OF_ROWS, scope.scope, t.term, JSON.stringify(rows)));
  const finish = (complete: boolean, only?: ReadonlySet<number>): ScopedRanking => {
    const rows: ScoredRow[] = [];
    for (const [row, parts] of partsOf) {
      if (only && !only.has(row)) continue;
      let score = 0;
      let matched = 0;
      for (const x of parts)
        if (!Number.isNaN(x)) {
          score += x;
          matched++;
        }
      if (options.matching === 'all' && matched < distinct.length) continue;
      rows.push({ row, score, matched });
    }
    rows.sort((a, b) => b.score - a.score || a.row - b.row);
    const depth = options.depth;
    return complete || depth === undefined
      ? { rows, terms: distinct.length, complete: true }
      : { rows: rows.slice(0, depth), terms: distinct.length, complete: false };
  };

  const present = terms.filter((t) => t.df > 0);
  if (options.matching === 'all') {
    if (present.length < distinct.length) return none;
    // Every match contains the rarest term: read it, then look the others up for its rows only.
    const [rarest, ...others] = [...present].sort((a, b) => a.df - b.df || (a.term < b.term ? -1 : 1));
    if (!rarest) return none;
    add(rarest, sql.arrays(raw(POSTINGS, scope.scope, rarest.term)));
    for (const t of others) add(t, lookup(t, [...partsOf.keys()]));
    return finish(true);
  }

  // Rarest (highest bound) first.
  const queue = [...present].sort((a, b) => b.idf - a.idf || (a.term < b.term ? -1 : 1));
  const bound = (t: Term) => t.idf * (K1 + 1);
  let rest = queue.reduce((sum, t) => sum + bound(t), 0);
  for (let i = 0; i < queue.length; i++) {
    const t = queue[i] as Term;
    add(t, sql.arrays(raw(POSTINGS, scope.scope, t.term)));
    rest -= bound(t);
    const unread = queue.slice(i + 1);
    const depth = options.depth;
    if (unread.length === 0 || depth === undefined || partsOf.size < depth) continue;
    // Complete the rows found so far with the unread terms, then see whether the unread terms alone
    // could still reach the depth-th best score.
    const snapshot = new Map([...partsOf].map(([row, parts]) => [row, Float64Array.from(parts)]));
    const found = [...partsOf.keys()];
    for (const u of unread) add(u, lookup(u, found));
    const top = finish(false);
    const threshold = top.rows[depth - 1]?.score ?? Number.POSITIVE_INFINITY;
    if (rest < threshold) return { ...top, rows: top.rows };
    // Not yet certain: forget the lookups (unread terms are read in full next).
    partsOf.clear();
    for (const [row, parts] of snapshot) partsOf.set(row, parts);
  }
  return finish(true);
}
