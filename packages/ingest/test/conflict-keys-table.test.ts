import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GROWTH_STEP, SeqKeyTable } from '../src/seq-key-table.js';

// The conflict key index's storage (seq-key-table.ts) against the plain Map it replaces: after any
// sequence of sets, deletes and lookups, both sides answer alike. Keys and seqs are drawn from small
// ranges (and a few huge ones) so probe runs collide, wrap around the table's end and are cut by
// deletes, and the tables grow through several doublings.

/** What the table must answer: seq → key, and key → its seqs ascending. */
class MapModel {
  readonly keyOfSeq = new Map<number, number>();
  set(seq: number, key: number): void {
    this.keyOfSeq.set(seq, key);
  }
  delete(seq: number): boolean {
    return this.keyOfSeq.delete(seq);
  }
  seqsOf(key: number): number[] {
    return [...this.keyOfSeq]
      .filter(([, k]) => k === key)
      .map(([s]) => s)
      .sort((a, b) => a - b);
  }
}

type Step =
  | { readonly op: 'set'; readonly seq: number; readonly key: number }
  | { readonly op: 'delete'; readonly seq: number }
  | { readonly op: 'lookup'; readonly seq: number; readonly key: number };

/** Seqs: mostly small and dense (as SQLite gives them), some past 2^32 (PostgreSQL's bigint). */
const seqArb = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 300 }) },
  { weight: 1, arbitrary: fc.integer({ min: 2 ** 32 - 4, max: 2 ** 32 + 4 }) },
  { weight: 1, arbitrary: fc.constantFrom(2 ** 53 - 1, 2 ** 40, 0) },
);
/** Keys: a few values (many seqs share each), and any uint32. */
const keyArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 12 }) },
  { weight: 2, arbitrary: fc.constantFrom(0xffffffff, 0x80000000, 0x9e3779b1) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 0xffffffff }) },
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('set' as const), seq: seqArb, key: keyArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), seq: seqArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('lookup' as const), seq: seqArb, key: keyArb }) },
);

/** Every seq and key the model knows (and those asked about) answer alike. */
function expectSame(table: SeqKeyTable, model: MapModel, asked: Iterable<{ seq: number; key: number }> = []): void {
  expect(table.size).toBe(model.keyOfSeq.size);
  const keys = new Set<number>();
  for (const [seq, key] of model.keyOfSeq) {
    if (table.keyOf(seq) !== key) expect(table.keyOf(seq)).toBe(key);
    keys.add(key);
  }
  for (const key of keys) expect(table.seqsOf(key)).toEqual(model.seqsOf(key));
  for (const { seq, key } of asked) {
    expect(table.keyOf(seq)).toBe(model.keyOfSeq.get(seq));
    expect(table.seqsOf(key)).toEqual(model.seqsOf(key));
  }
}

describe('SeqKeyTable', () => {
  it('finds a seq by its key and a key by its seq, and forgets both on delete', () => {
    const table = new SeqKeyTable();
    table.set(10, 7);
    table.set(11, 7);
    table.set(12, 8);
    expect(table.seqsOf(7)).toEqual([10, 11]);
    expect(table.keyOf(12)).toBe(8);
    expect(table.delete(10)).toBe(true);
    expect(table.delete(10)).toBe(false);
    expect(table.seqsOf(7)).toEqual([11]);
    expect(table.keyOf(10)).toBeUndefined();
    expect(table.size).toBe(2);
  });

  it('moves a seq to its new key (one key per seq)', () => {
    const table = new SeqKeyTable();
    table.set(5, 1);
    table.set(5, 2);
    expect(table.seqsOf(1)).toEqual([]);
    expect(table.seqsOf(2)).toEqual([5]);
    expect(table.size).toBe(1);
  });

  it('lists a key shared by many seqs in seq order whatever the order of their sets', () => {
    const table = new SeqKeyTable();
    for (const seq of [9, 3, 7, 1, 5]) table.set(seq, 0xffffffff);
    expect(table.seqsOf(0xffffffff)).toEqual([1, 3, 5, 7, 9]);
  });

  it('keeps seqs past 2^32 apart from those that share their low 32 bits', () => {
    const table = new SeqKeyTable();
    table.set(1, 1);
    const narrow = table.byteLength;
    table.set(2 ** 32 + 1, 2);
    // The seqs widen to 64 bits (4 more bytes per entry) and keep what they held.
    expect(table.byteLength).toBe(narrow + 4 * 8);
    table.set(2 ** 53 - 1, 3);
    expect(table.keyOf(1)).toBe(1);
    expect(table.keyOf(2 ** 32 + 1)).toBe(2);
    expect(table.keyOf(2 ** 53 - 1)).toBe(3);
  });

  it('finds seqs past 2^32 after the tables grew around them', () => {
    const table = new SeqKeyTable();
    for (let i = 0; i < 2000; i++) table.set(2 ** 32 + i * 7, i % 13);
    for (let i = 0; i < 2000; i++) expect(table.keyOf(2 ** 32 + i * 7)).toBe(i % 13);
    expect(table.seqsOf(5)).toHaveLength(154);
  });

  it('holds 120k pairs in about 30 bytes each, in typed arrays', () => {
    const table = new SeqKeyTable();
    for (let seq = 1; seq <= 120_000; seq++) table.set(seq, Math.imul(seq, 0x01000193) >>> 0);
    expect(table.size).toBe(120_000);
    // 8 bytes of entries (capacity 2^17) and 2 × 4 bytes per slot (2^18 slots past 0.75 × 2^17),
    // no table growing (by seq, the next growth starts past 0.6 × 2^18 = 157k).
    expect(table.byteLength).toBe(2 ** 17 * 8 + 2 ** 18 * 8);
    expect(table.byteLength / table.size).toBeLessThan(32);
    for (let seq = 1; seq <= 120_000; seq += 997) expect(table.seqsOf(Math.imul(seq, 0x01000193) >>> 0)).toContain(seq);
  });

  it('grows a table over many sets, a few entries each, never placing them all in one call', () => {
    const table = new SeqKeyTable();
    const sizes: number[] = [table.byteLength];
    for (let seq = 1; seq <= 200_000; seq++) {
      table.set(seq, seq % 1000);
      sizes.push(table.byteLength);
    }
    // A growth starts with the next table (twice the slots) and ends when the old one is freed:
    // +8L bytes, then −4L bytes some sets later. Placing every entry in one call would free the
    // old table in the call that made the new one: the footprint would never fall.
    const growths: Array<{ slots: number; sets: number; entries: number }> = [];
    for (let i = 1; i < sizes.length; i++) {
      const freed = (sizes[i - 1] as number) - (sizes[i] as number);
      if (freed <= 0) continue;
      let started = i - 1;
      while ((sizes[started] as number) - (sizes[started - 1] as number) !== 2 * freed) started--;
      growths.push({ slots: freed / 4, sets: i - started, entries: started });
    }
    // By seq from 16 slots to 2^19 and by key to 2^18: 29 growths, the first two of each over
    // fewer than GROWTH_STEP entries, so done in the set that started them (and not seen here).
    expect(growths).toHaveLength(25);
    for (const growth of growths) {
      // GROWTH_STEP entries placed per set while one more arrives: entries / (GROWTH_STEP − 1) sets.
      expect(growth.sets).toBeGreaterThanOrEqual(Math.floor(growth.entries / (GROWTH_STEP - 1)));
      expect(growth.sets).toBeLessThanOrEqual(Math.ceil(growth.entries / (GROWTH_STEP - 1)));
    }
    // The largest: by seq, from 2^18 slots once 0.6 × 2^18 are taken, over 5,073 sets.
    expect(growths.at(-1)).toEqual({ slots: 2 ** 18, sets: 5073, entries: 157_287 });
    for (let seq = 1; seq <= 200_000; seq += 991) expect(table.keyOf(seq)).toBe(seq % 1000);
  });

  // Growth steps of 1 and 2 keep a table growing for most of a run (and fill the old one to the
  // point where growth finishes at once), so sets and deletes meet a half-placed next table.
  it('answers as a Map under random sets, deletes and lookups (colliding keys and seqs)', () => {
    fc.assert(
      fc.property(
        fc.array(stepArb, { maxLength: 600, size: 'max' }),
        fc.constantFrom(1, 2, 5, GROWTH_STEP),
        (steps, growthStep) => {
          const table = new SeqKeyTable({ growthStep });
          const model = new MapModel();
          for (const step of steps) {
            if (step.op === 'set') {
              table.set(step.seq, step.key);
              model.set(step.seq, step.key);
            } else if (step.op === 'delete') {
              expect(table.delete(step.seq)).toBe(model.delete(step.seq));
            } else {
              expect(table.keyOf(step.seq)).toBe(model.keyOfSeq.get(step.seq));
              expect(table.seqsOf(step.key)).toEqual(model.seqsOf(step.key));
            }
            // The half-placed next table too: answers come from the old one until growth ends.
            table.checkIntegrity();
          }
          expectSame(
            table,
            model,
            steps.filter((s): s is Extract<Step, { op: 'lookup' }> => s.op === 'lookup'),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers as a Map after growing past several doublings and emptying again', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 3000 }),
        fc.integer({ min: 1, max: 50 }),
        fc.constantFrom(1, 3, GROWTH_STEP),
        (n, keys, growthStep) => {
          const table = new SeqKeyTable({ growthStep });
          const model = new MapModel();
          for (let seq = 1; seq <= n; seq++) {
            table.set(seq, seq % keys);
            model.set(seq, seq % keys);
          }
          expectSame(table, model);
          // Every other one goes, then the rest in reverse.
          for (let seq = 1; seq <= n; seq += 2) expect(table.delete(seq)).toBe(model.delete(seq));
          expectSame(table, model);
          for (let seq = n; seq >= 1; seq--) expect(table.delete(seq)).toBe(model.delete(seq));
          expectSame(table, model);
          expect(table.seqsOf(0)).toEqual([]);
        },
      ),
      { numRuns: 20 },
    );
  });
});
