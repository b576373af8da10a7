import { raw, type SqlExecutor } from '../internal/sql.js';
import type { TextCorpus } from './scoped-text-search.js';

/** One posting of the scoped text index: a term of a row, its count in the row and the row's length. */
export interface TextPosting {
  readonly term: string;
  readonly row: number;
  readonly tf: number;
  readonly len: number;
}

// Postings go in as multi-row VALUES: one statement per this many postings (bound parameters stay
// far under SQLite's limit), which halves the driver round trips of one statement per posting.
const POSTINGS_PER_STATEMENT = 32;
const POSTING_VALUES = '(?, ?, ?, ?, ?)';
const insertPostings = (n: number) =>
  `INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len) VALUES ${Array(n).fill(POSTING_VALUES).join(', ')}`;
const INSERT_MANY = insertPostings(POSTINGS_PER_STATEMENT);
const INSERT_ONE = insertPostings(1);

/** The scope of an agent's rows of `corpus`, created (empty) when it has none yet. */
export function ensureTextScope(sql: SqlExecutor, corpus: TextCorpus, agentId: string): number {
  sql.run(raw('INSERT OR IGNORE INTO text_scopes (corpus, agent_id) VALUES (?, ?)', corpus, agentId));
  return sql.get<{ scope: number }>(
    raw('SELECT scope FROM text_scopes WHERE corpus = ? AND agent_id = ?', corpus, agentId),
  )?.scope as number;
}

/**
 * Adds postings to a scope (an existing posting of the same term and row is kept, as the trigger's
 * `INSERT OR IGNORE` does). Callers pass them sorted by term, then row: consecutive inserts then
 * land on the same index pages.
 */
export function insertTextPostings(sql: SqlExecutor, scope: number, postings: readonly TextPosting[]): void {
  let i = 0;
  for (; i + POSTINGS_PER_STATEMENT <= postings.length; i += POSTINGS_PER_STATEMENT) {
    const parameters: unknown[] = [];
    for (let j = i; j < i + POSTINGS_PER_STATEMENT; j++) {
      const p = postings[j] as TextPosting;
      parameters.push(scope, p.term, p.row, p.tf, p.len);
    }
    sql.run(raw(INSERT_MANY, ...parameters));
  }
  for (; i < postings.length; i++) {
    const p = postings[i] as TextPosting;
    sql.run(raw(INSERT_ONE, scope, p.term, p.row, p.tf, p.len));
  }
}

/** Adds rows and tokens to a scope's counts (BM25's document count and average length). */
export function addTextScopeCounts(sql: SqlExecutor, scope: number, docs: number, tokens: number): void {
  sql.run(raw('UPDATE text_scopes SET docs = docs + ?, tokens = tokens + ? WHERE scope = ?', docs, tokens, scope));
}
