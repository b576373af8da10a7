import { describe, expect, it } from 'vitest';
import { parseCsv } from '../src/csv.js';
import { meanWithInterval, scoreRanking } from '../src/retrieval-metrics.js';

describe('retrieval metrics', () => {
  it('scores a ranking against gold ids', () => {
    const gold = new Set(['a', 'b']);
    const s = scoreRanking([['x'], ['a'], ['y'], ['z'], ['w'], ['b']], gold);
    expect(s.recall5).toBe(0.5);
    expect(s.recall10).toBe(1);
    expect(s.hit10).toBe(1);
    expect(s.mrr).toBe(0.5);
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(7);
    expect(s.ndcg10).toBeCloseTo(dcg / (1 + 1 / Math.log2(3)), 10);
  });

  it('counts a deduplicated result for every id it stands for, once', () => {
    expect(scoreRanking([['a', 'b'], ['a']], new Set(['a', 'b'])).recall5).toBe(1);
    expect(scoreRanking([], new Set(['a'])).ndcg10).toBe(0);
  });

  it('gives a bootstrap interval around the mean', () => {
    const m = meanWithInterval([0, 1, 0, 1, 1, 0, 1, 0]);
    expect(m.mean).toBe(0.5);
    expect(m.low).toBeLessThan(0.5);
    expect(m.high).toBeGreaterThan(0.5);
  });
});

describe('csv', () => {
  it('parses quoted fields with commas, quotes and newlines', () => {
    expect(parseCsv('id,text\n1,"a, b"\n2,"say ""hi""\nthere"\n')).toEqual([
      ['id', 'text'],
      ['1', 'a, b'],
      ['2', 'say "hi"\nthere'],
    ]);
  });
});
