import { describe, expect, it } from 'vitest';
import { ftsTokens, queryTerms } from '../src/index.js';

describe('query terms', () => {
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
});
