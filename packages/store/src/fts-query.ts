import { STOP_WORDS } from '@memory/core';

/**
 * Query text → search terms. Other packages tokenize a query once into {@link QueryTerms} and pass
 * that value to the store's search functions, which look the terms up in the scoped text index
 * (`text_postings`, see text-terms.ts); user text is never read as a query language.
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

/** bm25() is lower-is-better and unbounded; this maps it monotonically onto 0..1 (higher is better). */
export function bm25Score(bm25: number): number {
  const s = Math.max(0, -bm25);
  return s / (1 + s);
}
