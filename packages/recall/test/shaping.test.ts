import { defaultConfig, resolveConfig } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { dampen, fuseScore, isDated, LINKED_FLOOR, sharesQueryTerm } from '../src/shaping.js';

const base = { recall: defaultConfig.recall, traversal: defaultConfig.traversal };
const NOW = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

describe('fusion (golden cases)', () => {
  it.each([
    [
      'both channels: 0.3·semantic + 0.7·lexical',
      { lexical: 1, semantic: 0.5, anchored: true },
      true,
      0.3 * 0.5 + 0.7 * 1,
    ],
    ['lexical only, no query vector', { lexical: 0.8, anchored: true }, false, 0.8],
    ['semantic ran but the memory has no vector: lexical alone', { lexical: 0.6, anchored: true }, true, 0.6],
    ['semantic only', { semantic: 0.9, anchored: true }, true, 0.3 * 0.9],
    [
      'a hint counts as lexical evidence, discounted by the hint cap',
      { lexical: 0.2, hint: 0.9, semantic: 0.5, anchored: true },
      true,
      0.3 * 0.5 + 0.7 * 0.9 * 0.75,
    ],
    ['hint only: capped at 0.75', { hint: 1 }, false, 0.75],
    ['traversal anchored: max with the flat score', { lexical: 0.3, traversal: 0.8, anchored: true }, false, 0.8],
    ['traversal unanchored: capped at 0.35', { traversal: 0.9 }, false, 0.35],
    ['linked: at least the floor', { linked: 1 }, false, LINKED_FLOOR],
    ['linked with a strong text match keeps it', { linked: 1, lexical: 0.9, anchored: true }, false, 0.9],
  ] as const)('%s', (_name, evidence, semanticRan, expected) => {
    expect(fuseScore({ ...evidence }, { ...base, semanticRan })).toBeCloseTo(expected, 10);
  });

  it('reciprocal-rank fusion scores rank 1 in every channel as 1 and is rank-based', () => {
    const recall = resolveConfig({ recall: { fusion: 'rrf' } }).recall;
    const o = { recall, traversal: defaultConfig.traversal, semanticRan: true };
    expect(
      fuseScore({ ranks: { lexical: 1, semantic: 1 }, lexical: 0.1, semantic: 0.1, anchored: true }, o),
    ).toBeCloseTo(1, 10);
    const k = recall.rrfK;
    expect(fuseScore({ ranks: { lexical: 3 }, lexical: 1, anchored: true }, o)).toBeCloseTo(
      1 / (k + 3) / (2 / (k + 1)),
      10,
    );
  });
});

describe('dampening (golden cases)', () => {
  const subject = {
    content: 'Alice prefers green tea',
    type: 'fact',
    createdAt: NOW - 400 * DAY,
    entityDegrees: [] as number[],
  };
  const context = { queryTokens: ['alice', 'tea'], now: NOW };
  const recall = defaultConfig.recall;

  it('leaves an ordinary result alone', () => {
    expect(dampen(0.6, subject, context, recall)).toEqual({ score: 0.6, raw: 0.6, adjustments: {} });
  });

  it('gravity: a high-cosine result sharing no query term is halved', () => {
    const out = dampen(0.8, { ...subject, content: 'Bob enjoys hot coffee', semantic: 0.7 }, context, recall);
    expect(out).toMatchObject({ score: 0.4, adjustments: { gravity: 0.5 } });
    // Sharing a term (or a prefix-matched form of it) protects it.
    expect(
      dampen(
        0.8,
        { ...subject, content: 'Alison likes coffee', semantic: 0.7 },
        { ...context, queryTokens: ['alice'] },
        recall,
      ).adjustments.gravity,
    ).toBe(0.5);
    expect(
      dampen(0.8, { ...subject, content: 'teas and coffees', semantic: 0.7 }, context, recall).adjustments.gravity,
    ).toBeUndefined();
  });

  it('hub: results whose entities are all at or above the P90 degree are multiplied by 0.7', () => {
    expect(
      dampen(0.5, { ...subject, entityDegrees: [50, 60] }, { ...context, hubThreshold: 50 }, recall),
    ).toMatchObject({ score: 0.35, adjustments: { hub: 0.7 } });
    expect(
      dampen(0.5, { ...subject, entityDegrees: [50, 3] }, { ...context, hubThreshold: 50 }, recall).adjustments.hub,
    ).toBeUndefined();
    expect(dampen(0.5, subject, { ...context, hubThreshold: 0 }, recall).adjustments.hub).toBeUndefined();
  });

  it('resolution (when on; off by default): constraints, decisions and dated memories are boosted by 1.2', () => {
    expect(
      dampen(0.5, { ...subject, type: 'decision' }, context, defaultConfig.recall).adjustments.resolution,
    ).toBeUndefined();
    const recall = resolveConfig({ recall: { dampening: { resolution: true } } }).recall;
    expect(dampen(0.5, { ...subject, type: 'decision' }, context, recall)).toMatchObject({
      score: 0.6,
      adjustments: { resolution: 1.2 },
    });
    expect(dampen(0.5, { ...subject, type: 'constraint' }, context, recall).score).toBeCloseTo(0.6);
    expect(
      dampen(0.5, { ...subject, content: 'Alice switched to tea on 2025-03-04' }, context, recall).adjustments
        .resolution,
    ).toBe(1.2);
  });

  it('currentness: a memory whose claims were all superseded is multiplied by 0.8', () => {
    expect(dampen(0.5, { ...subject, superseded: true }, context, recall)).toMatchObject({
      score: 0.4,
      adjustments: { currentness: 0.8 },
    });
  });

  it('recency: up to +0.1, falling linearly to 0 at 365 days, and the result stays within 0..1', () => {
    expect(dampen(0.5, { ...subject, createdAt: NOW }, context, recall)).toMatchObject({
      score: 0.6,
      adjustments: { recency: 0.1 },
    });
    expect(dampen(0.5, { ...subject, createdAt: NOW - 182.5 * DAY }, context, recall).score).toBeCloseTo(0.55, 10);
    const over = dampen(0.95, { ...subject, createdAt: NOW }, context, recall);
    expect(over.score).toBe(1);
    expect(over.raw).toBeCloseTo(0.95 + 0.1, 10); // ranks above a result that reached exactly 1
  });

  it('every stage can be turned off', () => {
    const off = resolveConfig({
      recall: { recencyBoost: 0, dampening: { gravity: false, hub: false, resolution: false, currentness: false } },
    }).recall;
    const out = dampen(
      0.5,
      {
        ...subject,
        type: 'decision',
        content: 'x',
        semantic: 0.99,
        entityDegrees: [100],
        superseded: true,
        createdAt: NOW,
      },
      { ...context, hubThreshold: 1 },
      off,
    );
    expect(out).toEqual({ score: 0.5, raw: 0.5, adjustments: {} });
  });

  it('recognises dates and shared terms', () => {
    expect(['on 2024-05-01', 'May 7th', 'the 3rd of June', 'back in 1998', '7/4/2023'].every(isDated)).toBe(true);
    expect(['tea time', 'route 66', 'maybe later'].some(isDated)).toBe(false);
    expect(sharesQueryTerm('Painting sunrises', ['paint'])).toBe(true);
    expect(sharesQueryTerm('Painting sunrises', ['pain'])).toBe(true);
    expect(sharesQueryTerm('Coffee', ['tea'])).toBe(false);
  });
});
