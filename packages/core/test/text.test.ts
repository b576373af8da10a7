import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  contentHash,
  foldStoredForHash,
  hashNormalized,
  isWellFormedText,
  normalizeForHash,
  normalizeForStorage,
  utf8Length,
} from '../src/index.js';

describe('text normalization', () => {
  it('collapses whitespace and trims for storage, keeping case and punctuation', () => {
    expect(normalizeForStorage('  Alice\n\tprefers   tea.  ')).toBe('Alice prefers tea.');
  });

  it('lower-cases and strips trailing punctuation for the dedup form', () => {
    expect(normalizeForHash('  Alice PREFERS tea!!! ')).toBe('alice prefers tea');
    expect(normalizeForHash('Is it "done"?')).toBe('is it "done');
    expect(normalizeForHash('Wait... what')).toBe('wait... what');
  });

  it('hashes equivalent texts alike and different texts differently', () => {
    expect(contentHash('Alice prefers tea.')).toBe(contentHash('alice   prefers TEA'));
    expect(contentHash('Alice prefers tea')).not.toBe(contentHash('Alice prefers coffee'));
    expect(contentHash('x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('treats composed and decomposed Unicode as the same content', () => {
    expect(contentHash('Caf\u00e9 opens at 8')).toBe(contentHash('Cafe\u0301 opens at 8'));
  });

  it('folds the storage form as normalizeForHash folds the raw text, and hashes as a sha256 object does', () => {
    // Whitespace of every kind, trailing punctuation, decomposed accents and lone surrogates.
    const piece = fc.constantFrom(
      ' ',
      '\n',
      '\t',
      '\u00a0',
      '\u2028',
      '\u3000',
      '.',
      '!',
      '…',
      '"',
      'e\u0301',
      'É',
      'ß',
      'İ',
      '\uD800',
    );
    const text = fc
      .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 8 }), piece), { maxLength: 12 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (raw) => {
        const stored = normalizeForStorage(raw);
        expect(normalizeForStorage(stored)).toBe(stored);
        const folded = foldStoredForHash(stored);
        expect(folded).toBe(normalizeForHash(raw));
        expect(hashNormalized(folded)).toBe(createHash('sha256').update(folded, 'utf8').digest('hex'));
      }),
      { numRuns: 1000 },
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(utf8Length('é')).toBe(2);
    expect(utf8Length('🙂')).toBe(4);
  });

  it('detects lone surrogates, accepts pairs', () => {
    expect(isWellFormedText('emoji 🙂 ok')).toBe(true);
    expect(isWellFormedText('lone \uD800 high')).toBe(false);
    expect(isWellFormedText('lone \uDC00 low')).toBe(false);
    expect(isWellFormedText('\uD800')).toBe(false);
  });
});
