import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ListCentroids, nearestLists } from '../src/vector-index/kmeans.js';
import { NearestHits, type SeqHit } from '../src/vector-index/nearest-hits.js';
import { listRuns } from '../src/vector-index/search.js';

describe('ivf search runs', () => {
  it('searches consecutive lists with one KNN each run, in slices of about sliceRows vectors', () => {
    const size = (list: number) => (list === 0 ? 5 : 10);
    // Probed in rank order 7, 3, 4, 9, 8 plus the fresh list (0): runs 0, 3–4, 7–9.
    expect(listRuns([0, 7, 3, 4, 9, 8], size, 100)).toEqual([
      [
        { first: 0, last: 0, rows: 5 },
        { first: 3, last: 4, rows: 20 },
        { first: 7, last: 9, rows: 30 },
      ],
    ]);
    // A run never holds more than a slice's rows; a slice closes before the run that would overflow it.
    expect(listRuns([1, 2, 3, 4, 5], size, 25)).toEqual([
      [{ first: 1, last: 2, rows: 20 }],
      [{ first: 3, last: 4, rows: 20 }],
      [{ first: 5, last: 5, rows: 10 }],
    ]);
    // A list larger than a slice is searched alone.
    expect(listRuns([2, 1], (l) => (l === 1 ? 50 : 1), 10)).toEqual([
      [{ first: 1, last: 1, rows: 50 }],
      [{ first: 2, last: 2, rows: 1 }],
    ]);
  });

  it('orders the runs by the best rank of their lists, so the nearest lists are read first', () => {
    const size = () => 10;
    // Ranks: list 9 nearest, then 3, 4, 7, 8; the fresh list (0) last.
    const rank = new Map([
      [9, 0],
      [3, 1],
      [4, 2],
      [7, 3],
      [8, 4],
      [0, 5],
    ]);
    expect(listRuns([0, 7, 3, 4, 9, 8], size, 100, (l) => rank.get(l) ?? 99)).toEqual([
      [
        { first: 7, last: 9, rows: 30 },
        { first: 3, last: 4, rows: 20 },
        { first: 0, last: 0, rows: 10 },
      ],
    ]);
    expect(listRuns([0, 7, 3, 4, 9, 8], size, 30, (l) => rank.get(l) ?? 99)).toEqual([
      [{ first: 7, last: 9, rows: 30 }],
      [
        { first: 3, last: 4, rows: 20 },
        { first: 0, last: 0, rows: 10 },
      ],
    ]);
  });

  it('keeps the k nearest over bounded KNN calls: the same as the k nearest of every hit (property)', () => {
    // A run's KNN: its k nearest by distance then seq, within the bound when there is one. Coarse
    // distances make ties (and ties at the bound) common; a seq may come back in a later run.
    const hit = fc.record({ seq: fc.integer({ min: 0, max: 60 }), distance: fc.integer({ min: 0, max: 8 }) });
    const order = (a: SeqHit, b: SeqHit) => a.distance - b.distance || a.seq - b.seq;
    const nearestOf = (hits: readonly SeqHit[], k: number) => {
      const seen = new Set<number>();
      return [...hits]
        .sort(order)
        .filter((h) => !seen.has(h.seq) && seen.add(h.seq))
        .slice(0, k);
    };
    fc.assert(
      fc.property(
        fc.array(fc.array(hit, { maxLength: 30 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 12 }),
        (runs, k) => {
          const nearest = new NearestHits(k);
          for (const run of runs) {
            const bound = nearest.bound();
            nearest.add(nearestOf(bound === undefined ? run : run.filter((h) => h.distance <= bound), k));
          }
          expect(nearest.hits()).toEqual(nearestOf(runs.flat(), k));
        },
      ),
    );
  });

  it('covers every probed list once and no other (property)', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 }),
        fc.integer({ min: 1, max: 200 }),
        fc.func(fc.integer({ min: 0, max: 80 })),
        (lists, sliceRows, sizes) => {
          const sizeOf = (list: number) => sizes(list);
          const slices = listRuns(lists, sizeOf, sliceRows);
          const covered = slices
            .flat()
            .flatMap((r) => Array.from({ length: r.last - r.first + 1 }, (_, i) => r.first + i));
          expect(covered).toEqual([...lists].sort((a, b) => a - b));
          for (const run of slices.flat()) {
            let rows = 0;
            for (let l = run.first; l <= run.last; l++) rows += sizeOf(l);
            expect(run.rows).toBe(rows);
            if (run.first !== run.last) expect(run.rows).toBeLessThanOrEqual(sliceRows);
          }
          for (const slice of slices)
            if (slice.length > 1) expect(slice.reduce((s, r) => s + r.rows, 0)).toBeLessThanOrEqual(sliceRows);
        },
      ),
    );
  });

  it('ranks the probed lists as a full sort would: nearest first, ties by list id (property)', () => {
    // Coarse values make ties common; the partial selection must pick and order exactly as before.
    const coarse = fc.integer({ min: -3, max: 3 }).map((x) => x / 2);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.array(coarse, { minLength: 160, maxLength: 160 }),
        fc.array(coarse, { minLength: 4, maxLength: 4 }),
        fc.integer({ min: 0, max: 45 }),
        (lists, values, q, count) => {
          const dims = 4;
          const centroids = Float32Array.from({ length: lists * dims }, (_, i) => values[i % values.length] as number);
          const c: ListCentroids = {
            dimensions: dims,
            centroids,
            groupCentroids: new Float32Array(0),
            groupOf: new Int32Array(lists),
            listsOfGroup: [],
          };
          const query = Float32Array.from(q);
          const score = (l: number) => q.reduce((s, x, d) => s + x * (centroids[l * dims + d] as number), 0);
          const expected = Array.from({ length: lists }, (_, l) => l)
            .sort((a, b) => score(b) - score(a) || a - b)
            .slice(0, count);
          expect([...nearestLists(c, query, count)]).toEqual(expected);
        },
      ),
    );
  });
});
