import { describe, expect, it } from 'vitest';
import { contentHash, isWellFormedText, normalizeForHash, normalizeForStorage, utf8Length } from '../src/index.js';

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
