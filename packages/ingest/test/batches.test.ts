import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batches, type Prepared } from '../src/remember.js';

const item = (content: string) => ({ content }) as Prepared;

describe('rememberMany batching', () => {
  it('closes a batch at the count or the byte budget, whichever comes first', () => {
    const items = ['aaaa', 'bbbb', 'cccc', 'dd', 'eeeeeeeeee', 'f'].map(item);
    const sizes = [...batches(items, 3, 9)].map((b) => b.map((i) => i.content));
    expect(sizes).toEqual([['aaaa', 'bbbb'], ['cccc', 'dd'], ['eeeeeeeeee'], ['f']]);
    expect([...batches(items, 2, 1000)].map((b) => b.length)).toEqual([2, 2, 2]);
  });

  it('reads a count function as each batch fills, so a pacer sizes the next batch', () => {
    const items = Array.from({ length: 10 }, (_, i) => item(`m${i}`));
    let count = 4;
    const sizes: number[] = [];
    for (const batch of batches(items, () => count, 1000)) {
      sizes.push(batch.length);
      count = count === 4 ? 1 : 3;
    }
    expect(sizes).toEqual([4, 1, 3, 2]);
  });

  it('keeps every item once, in order, within both bounds (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 50 }), { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 1, max: 200 }),
        (texts, count, bytes) => {
          const out = [...batches(texts.map(item), count, bytes)];
          expect(out.flat().map((i) => i.content)).toEqual(texts);
          for (const b of out) {
            expect(b.length).toBeGreaterThan(0);
            expect(b.length).toBeLessThanOrEqual(count);
            if (b.length > 1)
              expect(b.reduce((s, i) => s + Buffer.byteLength(i.content), 0)).toBeLessThanOrEqual(bytes);
          }
        },
      ),
    );
  });
});
