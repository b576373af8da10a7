import { STOP_WORDS } from '@memory/core';

/**
 * Query text → search terms → FTS5 MATCH. Other packages tokenize a query once into
 * {@link QueryTerms} and pass that value to the store's search functions; the MATCH expression is
 * SQLite-specific and is built only here, inside the store. User text never reaches MATCH raw:
 * FTS5 reads `-`, `:`, quotes, parentheses, `*`, `^`, `AND`/`OR`/`NOT`/`NEAR` as syntax, and raw
 * input either throws or silently changes meaning. Text is split into letter/digit tokens, and
 * each token is quoted.
 */

/** Letter and digit runs after NFKC normalization, lower-cased — the same split FTS5's unicode61 makes. */
export function ftsTokens(text: string): string[] {
  return (text.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((t) => t.toLowerCase());
}

/**
 * What a lexical search looks for, tokenized once per query (by {@link queryTerms}) and passed to
 * the store's search functions instead of any query-language string.
 */
export interface QueryTerms {
  /** Distinct tokens in order of appearance, stop words dropped (unless the text has nothing else), capped. */
  readonly tokens: readonly string[];
}

/**
 * The terms of a query from its words (the {@link ftsTokens} of its text): distinct, stop words
 * dropped (unless the text has nothing else), at most `maxTokens`, in order of appearance.
 */
export function queryTerms(words: readonly string[], maxTokens: number): QueryTerms {
  const all = [...new Set(words)];
  const content = all.filter((t) => !STOP_WORDS.has(t));
  return { tokens: (content.length > 0 ? content : all).slice(0, maxTokens) };
}

/** Which rows a search keeps: those matching every term, or any term. */
export type TermMatching = 'all' | 'any';

/** Quotes one token for MATCH, doubling any inner quote. Store-internal. */
export function quoteFtsToken(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/**
 * A MATCH expression: every token quoted, joined with AND or OR. Returns undefined for no tokens
 * (callers return an empty result rather than run a query). Store-internal.
 */
export function buildFtsMatch(tokens: readonly string[], operator: 'AND' | 'OR'): string | undefined {
  if (tokens.length === 0) return undefined;
  return tokens.map(quoteFtsToken).join(` ${operator} `);
}

/** The MATCH expression for `terms` (every or any of them), or undefined when there are none. Store-internal. */
export function termsMatch(terms: QueryTerms, matching: TermMatching): string | undefined {
  return buildFtsMatch(terms.tokens, matching === 'all' ? 'AND' : 'OR');
}

/** bm25() is lower-is-better and unbounded; this maps it monotonically onto 0..1 (higher is better). */
export function bm25Score(bm25: number): number {
  const s = Math.max(0, -bm25);
  return s / (1 + s);
}

/** The FTS token that stands for an agent in `memories_fts.fts_scope` (see migration 5). Store-internal. */
export function scopeToken(agentId: string): string {
  return `s${Buffer.from(agentId, 'utf8').toString('hex')}0`;
}

/** Restricts a MATCH expression from {@link buildFtsMatch} to one agent's rows. Store-internal. */
export function scopedMatch(agentId: string, match: string): string {
  return `fts_scope : ${quoteFtsToken(scopeToken(agentId))} AND (${match})`;
}
