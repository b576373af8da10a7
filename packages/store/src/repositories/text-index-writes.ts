import { chunkSizes, statementsBySize, valueRows } from '../internal/row-chunks.js';
import type { SqlExecutor } from '../internal/sql.js';
import { get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { textTerms } from '../text-terms.js';
import type { TextCorpus } from './scoped-text-search.js';

/** One posting of the scoped text index: a term of a row, its count in the row and the row's length. */
export interface TextPosting {
  readonly term: string;
  readonly row: number;
  readonly tf: number;
  readonly len: number;
}

// Postings go in as multi-row VALUES: statements of 32 postings, the rest in statements of 16, 8, 4,
// 2 and 1 rows (its binary digits; see row-chunks.ts): a single remember's ~9 postings take 2
// statements instead of 9, from 6 cached statement texts.
const POSTINGS_PER_STATEMENT = 32;
const POSTING_VALUES = '(?, ?, ?, ?, ?)';

/**
 * The statements of one index's tables: the shared index (memories, turns, hints) or the working
 * notes' own (migration 15), which has the same scheme under other names.
 */
function statements(scopes: string, postings: string) {
  const insertPostings = (n: number) => {
    const sqlite = `INSERT OR IGNORE INTO ${postings} (scope, term, row, tf, len) VALUES ${valueRows(n, POSTING_VALUES)}`;
    const numbered = portable(sqlite.replace('INSERT OR IGNORE', 'INSERT')).postgres.sql;
    return { sqlite, postgres: `${numbered} ON CONFLICT DO NOTHING` };
  };
  return {
    insertPostings: statementsBySize(insertPostings),
    ensureScope: {
      sqlite: `INSERT OR IGNORE INTO ${scopes} (corpus, agent_id) VALUES (?, ?)`,
      postgres: `INSERT INTO ${scopes} (corpus, agent_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
    },
    findScope: `SELECT scope FROM ${scopes} WHERE corpus = ? AND agent_id = ?`,
    addCounts: `UPDATE ${scopes} SET docs = docs + ?, tokens = tokens + ? WHERE scope = ?`,
    addCountsOf: `UPDATE ${scopes} SET docs = docs + ?, tokens = tokens + ? WHERE corpus = ? AND agent_id = ? RETURNING scope`,
    deletePostings: {
      sqlite: `DELETE FROM ${postings} WHERE scope = ? AND row = ? AND term IN (SELECT value FROM json_each(?))`,
      postgres: `DELETE FROM ${postings} WHERE scope = $1 AND row = $2 AND term = ANY($3::text[])`,
    },
  };
}
const SHARED = statements('text_scopes', 'text_postings');
const NOTES = statements('note_text_scopes', 'note_text_postings');
const tablesOf = (corpus: TextCorpus) => (corpus === 'note' ? NOTES : SHARED);

/** The scope of an agent's rows of `corpus`, created (empty) when it has none yet. */
export function ensureTextScope(sql: SqlExecutor, corpus: TextCorpus, agentId: string): number {
  return runSqliteProgram(sql, ensureTextScopeProgram(corpus, agentId));
}

/** {@link ensureTextScope} as a program (both dialects). */
export function* ensureTextScopeProgram(corpus: TextCorpus, agentId: string): Program<number> {
  const q = tablesOf(corpus);
  // Scopes exist after an agent's first write: look first, insert only when missing.
  const found = yield* get<{ scope: number }>(portable(q.findScope, corpus, agentId));
  if (found) return found.scope;
  const parameters = [corpus, agentId];
  yield* run(perDialect({ sql: q.ensureScope.sqlite, parameters }, { sql: q.ensureScope.postgres, parameters }));
  return (yield* get<{ scope: number }>(portable(q.findScope, corpus, agentId)))?.scope as number;
}

/**
 * Adds postings to a scope (an existing posting of the same term and row is kept, as the trigger's
 * `INSERT OR IGNORE` does). Callers pass them sorted by term, then row: consecutive inserts then
 * land on the same index pages.
 */
export function insertTextPostings(sql: SqlExecutor, scope: number, postings: readonly TextPosting[]): void {
  runSqliteProgram(sql, insertTextPostingsProgram(scope, postings));
}

/** {@link insertTextPostings} as a program (both dialects). */
export function* insertTextPostingsProgram(
  scope: number,
  postings: readonly TextPosting[],
  corpus: TextCorpus = 'memory',
): Program<void> {
  const { insertPostings } = tablesOf(corpus);
  let i = 0;
  for (const n of chunkSizes(postings.length, POSTINGS_PER_STATEMENT)) {
    const statement = insertPostings(n);
    const parameters = postingParameters(scope, postings, i, n);
    yield* run(perDialect({ sql: statement.sqlite, parameters }, { sql: statement.postgres, parameters }));
    i += n;
  }
}

/** The bound values of `n` postings from `from`, in the VALUES order `(scope, term, row, tf, len)`. */
function postingParameters(scope: number, postings: readonly TextPosting[], from: number, n: number): unknown[] {
  const parameters: unknown[] = [];
  for (let j = from; j < from + n; j++) {
    const p = postings[j] as TextPosting;
    parameters.push(scope, p.term, p.row, p.tf, p.len);
  }
  return parameters;
}

/** Adds rows and tokens to a scope's counts (BM25's document count and average length). */
export function addTextScopeCounts(sql: SqlExecutor, scope: number, docs: number, tokens: number): void {
  runSqliteProgram(sql, addTextScopeCountsProgram(scope, docs, tokens));
}

/** {@link addTextScopeCounts} as a program (both dialects); negative numbers take rows away. */
export function* addTextScopeCountsProgram(
  scope: number,
  docs: number,
  tokens: number,
  corpus: TextCorpus = 'memory',
): Program<void> {
  yield* run(portable(tablesOf(corpus).addCounts, docs, tokens, scope));
}

/** A row of an indexed table: its seq and its text. */
export interface TextRow {
  readonly row: number;
  readonly text: string;
}

/**
 * Indexes rows of one agent's scope of `corpus`: what SQLite's insert triggers (migration 13) do
 * per row, for many rows at once: one count update (which finds the scope), postings in term order.
 * On PostgreSQL every indexed write goes through this (no trigger can call the tokenizer there).
 */
export function* indexTextRowsProgram(corpus: TextCorpus, agentId: string, rows: readonly TextRow[]): Program<void> {
  if (rows.length === 0) return;
  const postings: TextPosting[] = [];
  let tokens = 0;
  for (const { row, text } of rows) {
    const { counts, length } = textTerms(text);
    tokens += length;
    for (const [term, tf] of counts) postings.push({ term, row, tf, len: length });
  }
  postings.sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : a.row - b.row));
  // The counts first, finding the scope in the same statement (one lookup fewer per write); an agent
  // without a scope yet gets one, its postings, then its counts.
  const q = tablesOf(corpus);
  const counted = yield* get<{ scope: number }>(portable(q.addCountsOf, rows.length, tokens, corpus, agentId));
  if (counted) {
    yield* insertTextPostingsProgram(counted.scope, postings, corpus);
    return;
  }
  const scope = yield* ensureTextScopeProgram(corpus, agentId);
  yield* insertTextPostingsProgram(scope, postings, corpus);
  yield* addTextScopeCountsProgram(scope, rows.length, tokens, corpus);
}

/**
 * Removes rows from one agent's scope of `corpus` (their postings and their share of the counts):
 * what SQLite's delete and update triggers do. `text` must be the text the row was indexed with.
 */
export function* unindexTextRowsProgram(corpus: TextCorpus, agentId: string, rows: readonly TextRow[]): Program<void> {
  if (rows.length === 0) return;
  const q = tablesOf(corpus);
  const found = yield* get<{ scope: number }>(portable(q.findScope, corpus, agentId));
  if (!found) return;
  let tokens = 0;
  for (const { row, text } of rows) {
    const { counts, length } = textTerms(text);
    tokens += length;
    const terms = [...counts.keys()];
    yield* run(
      perDialect(
        { sql: q.deletePostings.sqlite, parameters: [found.scope, row, JSON.stringify(terms)] },
        { sql: q.deletePostings.postgres, parameters: [found.scope, row, terms] },
      ),
    );
  }
  yield* addTextScopeCountsProgram(found.scope, -rows.length, -tokens, corpus);
}
