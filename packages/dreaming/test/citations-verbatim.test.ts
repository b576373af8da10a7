import { contentHash, normalizeForHash } from '@memory/core';
import { completeTranscript, type Store, upsertTranscript } from '@memory/store';
import { createTestStore, insertMemory } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Citation, checkCitations, MAX_QUOTE_CHARS } from '../src/citations.js';

// What "verbatim" means for a Dreaming citation: the quote must be a substring of the evidence,
// UTF-16 code unit for code unit, after ONE normalization applied to both sides (`canonical` in
// src/citations.ts): Unicode NFC and line endings unified (CRLF and lone CR become LF). These are
// differences of encoding, not wording. Nothing else is forgiven: not letter case, not spacing
// (doubled, missing, tabs, non-breaking spaces, a space for a line break), not compatibility forms
// (NFKC would fold the "ﬁ" ligature and full-width letters; NFC does not). A near-exact quote that
// differs in any of those is a misquote, and the model is told to copy the exact text.

const NOW = Date.UTC(2026, 0, 1);
const EVIDENCE =
  'Priya approved the Q3 budget on Thursday.\r\nThe vendor delay moves the launch to 10:00 on March 14.\rOffice ﬁle: Café Zürich, ＲＯＯＭ 4.';

function memory(store: Store, id: string, content: string) {
  store.write((sql) =>
    insertMemory(sql, {
      id,
      agent_id: 'a',
      type: 'fact',
      content,
      normalized_content: normalizeForHash(content),
      content_hash: contentHash(content),
      confidence: 1,
      importance: 0.5,
      tags: '[]',
      linked_entities: '[]',
      pinned: 0,
      created_at: NOW,
      updated_at: NOW,
    }),
  );
}

async function seeded() {
  const store = await createTestStore();
  memory(store, 'm', EVIDENCE);
  store.write((sql) => {
    upsertTranscript(sql, { agentId: 'a', sessionKey: 's', harness: null, project: null, now: NOW });
    completeTranscript(sql, { agentId: 'a', sessionKey: 's', content: EVIDENCE, contentHash: 'h', now: NOW });
  });
  return store;
}

const check = (store: Store, sourceRef: string, quote: string) =>
  store.read((sql) => checkCitations(sql, 'a', [{ sourceRef, quote }]));

describe('citations are verbatim: byte-exact after NFC and line-ending normalization', () => {
  it.each([
    ['the exact text', 'approved the Q3 budget on Thursday'],
    ['LF where the evidence has CRLF', 'Thursday.\nThe vendor'],
    ['CRLF where the evidence has CRLF', 'Thursday.\r\nThe vendor'],
    ['LF where the evidence has a lone CR', 'March 14.\nOffice'],
    ['CRLF where the evidence has a lone CR', 'March 14.\r\nOffice'],
    ['decomposed accents (NFD) for composed ones', 'Cafe\u0301 Zu\u0308rich'],
    ['the ligature and full-width letters as they are', 'Office ﬁle: Café Zürich, ＲＯＯＭ 4'],
  ])('accepts %s', async (_name, quote) => {
    const store = await seeded();
    for (const ref of ['memory:m', 'transcript:s']) expect(check(store, ref, quote)).toMatchObject({ ok: true });
  });

  it.each([
    // Letter case only.
    ['a capitalized first letter', 'Approved the Q3 budget on Thursday'],
    ['one letter in the middle', 'approved the q3 budget on Thursday'],
    ['all capitals', 'APPROVED THE Q3 BUDGET ON THURSDAY'],
    ['all lower case', 'priya approved the q3 budget on thursday'],
    // Spacing only.
    ['a doubled space', 'approved the  Q3 budget on Thursday'],
    ['a tab for a space', 'approved the\tQ3 budget on Thursday'],
    ['a line break for a space', 'approved the\nQ3 budget on Thursday'],
    ['a missing space', 'approved theQ3 budget on Thursday'],
    ['a non-breaking space for a space', 'approved the\u00a0Q3 budget on Thursday'],
    ['a space for the line break', 'Thursday. The vendor delay'],
    ['a trailing space the evidence does not have there', 'approved the Q3 budget on Thursday '],
    ['a leading space the evidence does not have there', ' Priya approved the Q3 budget'],
    // Compatibility forms (NFKC, not NFC).
    ['the ligature spelled out', 'Office file: Café'],
    ['full-width letters in ASCII', 'Zürich, ROOM 4'],
  ])('rejects a near-exact quote with %s', async (_name, quote) => {
    const store = await seeded();
    for (const ref of ['memory:m', 'transcript:s'])
      expect(check(store, ref, quote)).toEqual({ ok: false, reason: expect.stringMatching(/word for word/) });
  });

  const TEXT = 'The quarterly review moved to Thursday at 10:00 after the vendor delay; Priya approves the budget.';
  const letters = [...TEXT.matchAll(/[A-Za-z]/g)].map((m) => m.index ?? 0);
  const spaces = [...TEXT.matchAll(/ /g)].map((m) => m.index ?? 0);

  it('rejects every quote that differs from the evidence only in the case of one letter (property)', async () => {
    const store = await createTestStore();
    memory(store, 'm', TEXT);
    await fc.assert(
      fc.property(fc.constantFrom(...letters), fc.integer({ min: 8, max: 40 }), fc.nat(39), (at, length, before) => {
        const start = Math.max(0, at - Math.min(before, length - 1));
        const exact = TEXT.slice(start, start + length);
        const i = at - start;
        const ch = exact[i] ?? '';
        const flipped = ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase();
        const quote = exact.slice(0, i) + flipped + exact.slice(i + 1);
        expect(check(store, 'memory:m', exact).ok).toBe(exact.trim().length >= 8);
        expect(check(store, 'memory:m', quote).ok).toBe(false);
      }),
    );
  });

  it('rejects every quote that differs from the evidence only in one space (property)', async () => {
    const store = await createTestStore();
    memory(store, 'm', TEXT);
    await fc.assert(
      fc.property(
        fc.constantFrom(...spaces),
        fc.constantFrom('', '  ', '\t', '\n', '\u00a0', '\u2009'),
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 8, max: 30 }),
        (at, replacement, before, after) => {
          const start = Math.max(0, at - before);
          const quote = `${TEXT.slice(start, at)}${replacement}${TEXT.slice(at + 1, at + 1 + after)}`;
          fc.pre(quote.trim().length >= 8);
          expect(check(store, 'memory:m', quote).ok).toBe(false);
        },
      ),
    );
  });
});

describe('citation check edges', () => {
  const LONG = `${'The incident review found three causes. '.repeat(60)}End.`;

  it('accepts a verbatim quote of exactly MAX_QUOTE_CHARS and rejects one character more', async () => {
    const store = await createTestStore();
    memory(store, 'long', LONG);
    expect(LONG.length).toBeGreaterThan(MAX_QUOTE_CHARS + 1);
    expect(check(store, 'memory:long', LONG.slice(0, MAX_QUOTE_CHARS))).toMatchObject({ ok: true });
    expect(check(store, 'memory:long', LONG.slice(0, MAX_QUOTE_CHARS + 1))).toEqual({
      ok: false,
      reason: expect.stringMatching(new RegExp(`evidence\\[0\\]: quote at most ${MAX_QUOTE_CHARS} characters`)),
    });
  });

  it('treats a quote that is not a string as missing', async () => {
    const store = await seeded();
    for (const quote of [12345678901, undefined, null, ['approved the Q3 budget']])
      expect(
        store.read((sql) => checkCitations(sql, 'a', [{ sourceRef: 'memory:m', quote } as unknown as Citation])),
      ).toEqual({ ok: false, reason: expect.stringMatching(/quote at least 8 characters copied verbatim/) });
  });

  it('names a bad reference in the reason, cut to 80 characters', async () => {
    const store = await seeded();
    const ref = `url:${'x'.repeat(200)}`;
    const result = store.read((sql) => checkCitations(sql, 'a', [{ sourceRef: ref, quote: 'approved the Q3 budget' }]));
    expect(result).toEqual({
      ok: false,
      reason: `evidence[0]: "${ref.slice(0, 80)}" is not an evidence reference; use transcript:<sessionKey>, memory:<id>, document:<id> or import:<recordId>`,
    });
  });
});
