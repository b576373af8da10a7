import { describe, expect, it } from 'vitest';
import { passagesOf } from '../src/passages.js';

describe('passagesOf', () => {
  it('cuts at sentence ends into passages of about the given size', () => {
    const text = 'One two three. Four five six! Seven eight nine? Ten eleven twelve.';
    expect(passagesOf(text, 30)).toEqual(['One two three. Four five six!', 'Seven eight nine?', 'Ten eleven twelve.']);
  });
  it('keeps a long sentence whole and a short text as one passage', () => {
    expect(passagesOf('a'.repeat(50), 10)).toEqual(['a'.repeat(50)]);
    expect(passagesOf('Short. Text.', 400)).toEqual(['Short. Text.']);
  });
});
