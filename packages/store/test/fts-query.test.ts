import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFtsMatch } from '../src/fts-query.js';
import { ftsTokens, queryTerms } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

describe('FTS query construction', () => {
  it('splits into letter/digit tokens the way unicode61 does', () => {
    expect(ftsTokens('C++ and node.js: well-known "quotes" NEAR(x)')).toEqual([
      'c',
      'and',
      'node',
      'js',
      'well',
      'known',
      'quotes',
      'near',
      'x',
    ]);
    expect(ftsTokens('Zürich café 東京 🙂')).toEqual(['zürich', 'café', '東京']);
    expect(ftsTokens('?!... --- ::')).toEqual([]);
  });

  it('keeps distinct content words as query terms, in order and capped; stop words only when nothing else', () => {
    expect(queryTerms(ftsTokens('What does Alice drink? Alice drinks tea'), 8)).toEqual({
      tokens: ['alice', 'drink', 'drinks', 'tea'],
    });
    expect(queryTerms(ftsTokens('alpha beta gamma delta'), 2)).toEqual({ tokens: ['alpha', 'beta'] });
    expect(queryTerms(ftsTokens('what is it'), 8)).toEqual({ tokens: ['what', 'is', 'it'] });
    expect(queryTerms([], 8)).toEqual({ tokens: [] });
  });

  it('quotes every token so operators are searched as words', () => {
    expect(buildFtsMatch(['and', 'or', 'not'], 'OR')).toBe('"and" OR "or" OR "not"');
    expect(buildFtsMatch([], 'AND')).toBeUndefined();
  });

  it('never produces a MATCH expression SQLite rejects, for any input (property)', async () => {
    const store = await createTestStore();
    // The store keeps no FTS5 index since migration 20; the expressions are checked on one of the
    // same kind (the porter/unicode61 tokenizer the memory index had).
    store.database.exec(
      `CREATE VIRTUAL TABLE temp.match_check USING fts5(content, tokenize="porter unicode61 remove_diacritics 2");
       INSERT INTO temp.match_check (rowid, content) VALUES (1, 'near and or not zurich');`,
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          fc.constantFrom('NEAR(', '"', 'a:b', '-x', '*', '^c', 'AND', '(cafe'),
        ),
        fc.boolean(),
        (text, and) => {
          const match = buildFtsMatch(ftsTokens(text), and ? 'AND' : 'OR');
          if (match === undefined) return;
          store.read((sql) => sql.all(raw('SELECT rowid FROM match_check WHERE match_check MATCH ?', match)));
        },
      ),
      { numRuns: 500 },
    );
    expect(
      store.read((sql) =>
        sql.all(
          raw('SELECT rowid FROM match_check WHERE match_check MATCH ?', buildFtsMatch(['near', 'zurich'], 'AND')),
        ),
      ),
    ).toHaveLength(1);
  });
});
