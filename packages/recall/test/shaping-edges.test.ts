import { defaultConfig, resolveConfig } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { dampen, fuseScore, isDated, LINKED_FLOOR, sharesQueryTerm } from '../src/shaping.js';

// Edges of the scoring rules that the golden cases in shaping.test.ts do not reach (found by
// mutation testing: each case below fails under a plausible change to src/shaping.ts).

const base = { recall: defaultConfig.recall, traversal: defaultConfig.traversal };
const rrf = { ...base, recall: resolveConfig({ recall: { fusion: 'rrf' } }).recall };
const NOW = Date.UTC(2026, 0, 1);

describe('the hint-only cap', () => {
  it('caps a hint-only candidate whose unanchored cosine would lift it above the cap', () => {
    // The semantic score came from scoring a candidate the semantic channel did not rank (not anchored).
    expect(fuseScore({ hint: 1, semantic: 1 }, { ...base, semanticRan: true })).toBe(0.75);
    expect(fuseScore({ hint: 1, ranks: { hint: 1 } }, { ...rrf, semanticRan: false })).toBe(0.75);
  });

  it('does not cap a candidate with any anchor or lexical evidence of its own', () => {
    expect(fuseScore({ hint: 1, semantic: 1, anchored: true }, { ...base, semanticRan: true })).toBeCloseTo(
      0.3 + 0.7 * 0.75,
      10,
    );
    expect(fuseScore({ hint: 1, lexical: 0.1, semantic: 1 }, { ...base, semanticRan: true })).toBeCloseTo(
      0.3 + 0.7 * 0.75,
      10,
    );
    // Without a hint there is nothing to cap, whatever else is missing (a low cap makes it visible).
    expect(fuseScore({ semantic: 1 }, { ...base, semanticRan: true })).toBeCloseTo(0.3, 10);
    const lowCap = { ...base, recall: resolveConfig({ recall: { hintOnlyCap: 0.2 } }).recall, semanticRan: true };
    expect(fuseScore({ semantic: 1 }, lowCap)).toBeCloseTo(0.3, 10);
    expect(fuseScore({ semantic: 1, hint: 0 }, lowCap)).toBeCloseTo(0.3, 10);
    expect(fuseScore({ semantic: 1, hint: 0.2 }, lowCap)).toBe(0.2);
    expect(fuseScore({ ranks: { semantic: 1 }, semantic: 1 }, { ...rrf, semanticRan: true })).toBeCloseTo(0.5, 10);
  });

  it('reciprocal-rank fusion with no ranks at all scores nothing but the link floor', () => {
    expect(fuseScore({ linked: 1 }, { ...rrf, semanticRan: true })).toBe(LINKED_FLOOR);
    expect(fuseScore({}, { ...rrf, semanticRan: false })).toBe(0);
  });
});

describe('dampening edges', () => {
  const subject = {
    content: 'Bob enjoys hot coffee',
    type: 'fact',
    createdAt: NOW - 400 * 86_400_000,
    entityDegrees: [],
  };
  const context = { queryTokens: ['alice'], now: NOW };

  it('gravity starts at exactly gravityCosine', () => {
    expect(dampen(0.8, { ...subject, semantic: 0.6 }, context, defaultConfig.recall).adjustments.gravity).toBe(0.5);
    expect(
      dampen(0.8, { ...subject, semantic: 0.599 }, context, defaultConfig.recall).adjustments.gravity,
    ).toBeUndefined();
  });
});

describe('date recognition', () => {
  // None of these carries a 19xx or 20xx year, so each is recognised by its own pattern only.
  it.each([
    'the survey of 1850-03-14',
    'due 3/14/85',
    'due 11/2/77',
    'on March 14',
    'on mar 14',
    'Sept. 3 deadline',
    'on March 14th',
    '14 March',
    'the 2nd of June',
    '14th of February',
  ])('recognises "%s" as dated', (text) => {
    expect(isDated(text)).toBe(true);
  });

  it.each(['version 3.14 ships', 'room 1850', 'at 10:30 sharp', 'march forward 3 steps'])(
    'does not take "%s" for a date',
    (text) => {
      expect(isDated(text)).toBe(false);
    },
  );
});

describe('shared query terms', () => {
  it('matches a query word one letter longer than a short content word', () => {
    expect(sharesQueryTerm('We drink tea daily', ['teas'])).toBe(true);
    expect(sharesQueryTerm('We drink teas daily', ['tea'])).toBe(true);
  });

  it('does not match a short prefix that is neither four letters long nor one letter short', () => {
    expect(sharesQueryTerm('Painting the wall', ['pa'])).toBe(false);
    expect(sharesQueryTerm('Painting the wall', ['pai'])).toBe(false);
  });

  it('a query with no tokens shares terms with everything (nothing to contradict)', () => {
    expect(sharesQueryTerm('anything at all', [])).toBe(true);
  });
});
