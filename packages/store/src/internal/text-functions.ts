import { textTerms } from '../text-terms.js';
import type { SqliteDatabase } from './sqlite.js';

/**
 * Registers the SQL functions the scoped text index's triggers call (`text_terms(text)`: one row per
 * distinct term with its count and the text's length). They live in JavaScript, so every
 * connection that writes indexed rows (memories, transcript turns, hints) must register them
 * before it writes; `openStore` does, before migrations.
 */
export function registerTextFunctions(db: SqliteDatabase): void {
  // The triggers call text_terms twice for a row (terms, then length): the last text's terms are kept.
  let lastText: string | undefined;
  let last = textTerms('');
  const termsOf = (text: unknown) => {
    const s = typeof text === 'string' ? text : text === null || text === undefined ? '' : String(text);
    if (s !== lastText) {
      last = textTerms(s);
      lastText = s;
    }
    return last;
  };
  db.table('text_terms', {
    columns: ['term', 'tf', 'len'],
    parameters: ['text'],
    *rows(text: unknown) {
      const { counts, length } = termsOf(text);
      for (const [term, tf] of counts) yield { term, tf, len: length };
    },
  });
  db.function('text_length', { deterministic: true }, (text: unknown) => termsOf(text).length);
}
