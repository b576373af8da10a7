import { textTerms } from '../text-terms.js';
import type { SqliteDatabase } from './sqlite.js';

/** Whether a connection's memory inserts are indexed by the memory writer instead of the trigger. */
interface TextIndexDeferral {
  deferred: boolean;
}

const deferrals = new WeakMap<SqliteDatabase, TextIndexDeferral>();

/** The deferral switch of one connection (shared by every executor on it). */
export function textIndexDeferral(db: SqliteDatabase): TextIndexDeferral {
  let deferral = deferrals.get(db);
  if (!deferral) {
    deferral = { deferred: false };
    deferrals.set(db, deferral);
  }
  return deferral;
}

/**
 * Registers the SQL functions the scoped text index's triggers call (`text_terms(text)`: one row per
 * distinct term with its count and the text's length; `text_length(text)`; `text_index_deferred()`:
 * 1 while the memory writer indexes its own inserts, see migration 20). They live in JavaScript, so
 * every connection that writes indexed rows (memories, transcript turns, hints) must register them
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
  const deferral = textIndexDeferral(db);
  // Not deterministic: its value changes within a statement's lifetime (between executions).
  db.function('text_index_deferred', () => (deferral.deferred ? 1 : 0));
}
