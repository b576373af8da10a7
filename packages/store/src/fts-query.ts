import { STOP_WORDS } from '@memory/core';

/**
 * Safe FTS5 query construction. User text is never passed raw to MATCH: FTS5 reads `-`, `:`, quotes,
 * parentheses, `*`, `^`, `AND`/`OR`/`NOT`/`NEAR` as syntax, and raw input either throws or silently
 * changes meaning. Text is split into letter/digit tokens here, and each token is quoted.
 */

/** Letter and digit runs after NFKC normalization, lower-cased — the same split FTS5's unicode61 makes. */
export function ftsTokens(text: string): string[] {
  return (text.normalize('NFKC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).map((t) => t.toLowerCase());
}

/**
 * The tokens a lexical query searches for: distinct, stop words dropped (unless the text has nothing
 * else), at most `maxTokens`, in order of appearance.
 */
export function queryTokens(text: string, maxTokens: number): string[] {
  const all = [...new Set(ftsTokens(text))];
  const content = all.filter((t) => !STOP_WORDS.has(t));
  return (content.length > 0 ? content : all).slice(0, maxTokens);
}

/** Quotes one token for MATCH, doubling any inner quote. */
export function quoteFtsToken(token: string): string {
  return `"${token.replaceAll('"', '""')}"`;
}

/**
 * A MATCH expression: every token quoted, joined with AND or OR. Returns undefined for no tokens
 * (callers return an empty result rather than run a query).
 */
export function buildFtsMatch(tokens: readonly string[], operator: 'AND' | 'OR'): string | undefined {
  if (tokens.length === 0) return undefined;
  return tokens.map(quoteFtsToken).join(` ${operator} `);
}

/** bm25() is lower-is-better and unbounded; this maps it monotonically onto 0..1 (higher is better). */
export function bm25Score(bm25: number): number {
  const s = Math.max(0, -bm25);
  return s / (1 + s);
}

/** The FTS token that stands for an agent in `memories_fts.fts_scope` (see migration 5). */
export function scopeToken(agentId: string): string {
  return `s${Buffer.from(agentId, 'utf8').toString('hex')}0`;
}

/** Restricts a MATCH expression from {@link buildFtsMatch} to one agent's rows. */
export function scopedMatch(agentId: string, match: string): string {
  return `fts_scope : ${quoteFtsToken(scopeToken(agentId))} AND (${match})`;
}
