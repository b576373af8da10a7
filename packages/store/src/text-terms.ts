import { STOP_WORDS } from '@memory/core';
import { stemmer } from 'stemmer';

/**
 * The terms of the scoped text index (`text_postings`): how stored text and query words become the
 * same index terms. Tokens are letter/digit runs after NFKC normalization and lower-casing (the
 * split {@link ftsTokens} makes), diacritics are folded, and ASCII words are Porter-stemmed, so
 * "painting" and "paints" meet "paint". Index and query go through this one function, so they
 * always agree. English stop words count towards a text's length but are not indexed: queries
 * drop them (recall's query plan does), and they were about half of all postings.
 */

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;
const MARKS = /\p{M}/gu;
const ASCII_WORD = /^[a-z]+$/;
/** Longer words are kept whole (no English word this long needs stemming; bounds the work). */
const MAX_STEMMED = 40;
const STEM_CACHE = 20_000;

const stems = new Map<string, string>();

/** The index term for one lower-cased token. */
export function termOf(token: string): string {
  const cached = stems.get(token);
  if (cached !== undefined) return cached;
  const folded =
    /[^\p{L}\p{N}]/u.test(token) || /[^\x00-\x7f]/.test(token) ? token.normalize('NFD').replace(MARKS, '') : token;
  const term = ASCII_WORD.test(folded) && folded.length <= MAX_STEMMED ? stemmer(folded) : folded;
  if (stems.size >= STEM_CACHE) stems.clear();
  stems.set(token, term);
  return term;
}

/** A text's index terms with their counts, and its length in tokens. */
export interface TextTerms {
  readonly counts: Map<string, number>;
  readonly length: number;
}

/** Every token of `text` but stop words as an index term, counted; the length counts every token. */
export function textTerms(text: string): TextTerms {
  const counts = new Map<string, number>();
  let length = 0;
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    length++;
    if (STOP_WORDS.has(match[0])) continue;
    const term = termOf(match[0]);
    if (term.length > 0) counts.set(term, (counts.get(term) ?? 0) + 1);
  }
  return { counts, length };
}

/** The distinct index terms of query tokens, in order; stop words have none. */
export function queryIndexTerms(tokens: readonly string[]): string[] {
  return [
    ...new Set(
      tokens
        .filter((t) => !STOP_WORDS.has(t))
        .map(termOf)
        .filter((t) => t.length > 0),
    ),
  ];
}
