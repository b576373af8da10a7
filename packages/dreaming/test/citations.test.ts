import { contentHash, normalizeForHash } from '@memory/core';
import { completeTranscript, type Store, upsertTranscript } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore, insertMemory } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkCitations } from '../src/citations.js';
import { parseSourceRef } from '../src/evidence.js';

const NOW = Date.UTC(2026, 0, 1);

function memory(store: Store, id: string, agentId: string, content: string) {
  store.write((sql) =>
    insertMemory(sql, {
      id,
      agent_id: agentId,
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

function transcript(store: Store, agentId: string, sessionKey: string, content: string, completed: boolean) {
  store.write((sql) => {
    upsertTranscript(sql, { agentId, sessionKey, harness: null, project: null, now: NOW });
    if (completed)
      completeTranscript(sql, { agentId, sessionKey, content, contentHash: contentHash(content), now: NOW });
  });
}

async function seeded() {
  const store = await createTestStore();
  memory(store, 'mem-a', 'a', 'Alice prefers green tea over coffee, since March.');
  memory(store, 'mem-b', 'b', 'Bob prefers black coffee every morning.');
  memory(store, 'mem-gone', 'a', 'A note that was later forgotten.');
  store.write((sql) => sql.run(raw("UPDATE memories SET is_deleted = 1, deleted_at = ? WHERE id = 'mem-gone'", NOW)));
  transcript(store, 'a', 'chat-1', 'user: we moved the launch to March\nassistant: noted, March it is', true);
  transcript(store, 'b', 'chat-1', 'user: b has its own chat-1 about budgets', true);
  transcript(store, 'a', 'open', '', false);
  transcript(store, 'b', 'b-only', 'user: private to b', true);
  return store;
}

describe('citation checks', () => {
  it('accepts verbatim quotes from the agent’s own completed evidence', async () => {
    const store = await seeded();
    const result = store.read((sql) =>
      checkCitations(sql, 'a', [
        { sourceRef: 'memory:mem-a', quote: 'prefers green tea over coffee' },
        { sourceRef: 'transcript:chat-1', quote: 'we moved the launch to March' },
      ]),
    );
    expect(result).toEqual({
      ok: true,
      refs: [
        { kind: 'memory', id: 'mem-a' },
        { kind: 'transcript', id: 'chat-1' },
      ],
    });
  });

  it.each([
    ['no citation at all', [], /cite at least one/],
    ['a paraphrase', [{ sourceRef: 'memory:mem-a', quote: 'Alice likes green tea more than coffee' }], /word for word/],
    [
      'an invented id',
      [{ sourceRef: 'memory:mem-404', quote: 'prefers green tea over coffee' }],
      /memory:mem-404 is not evidence of this scope/,
    ],
    // Answered exactly like an invented id: no existence oracle across scopes.
    [
      'another agent’s memory',
      [{ sourceRef: 'memory:mem-b', quote: 'prefers black coffee' }],
      /memory:mem-b is not evidence of this scope/,
    ],
    [
      'another agent’s session (same key elsewhere only)',
      [{ sourceRef: 'transcript:b-only', quote: 'private to b' }],
      /transcript:b-only is not evidence of this scope/,
    ],
    [
      'another agent’s text under a shared session key',
      [{ sourceRef: 'transcript:chat-1', quote: 'b has its own chat-1' }],
      /word for word/,
    ],
    ['an open transcript', [{ sourceRef: 'transcript:open', quote: 'anything at all here' }], /not citable yet/],
    ['a forgotten memory', [{ sourceRef: 'memory:mem-gone', quote: 'later forgotten' }], /not citable yet/],
    ['a too-short quote', [{ sourceRef: 'memory:mem-a', quote: 'tea' }], /at least 8 characters/],
    [
      'a reference of an unknown kind',
      [{ sourceRef: 'url:https://x', quote: 'prefers green tea' }],
      /not an evidence reference/,
    ],
    [
      'an attention reference as evidence',
      [{ sourceRef: 'attention:42', quote: 'prefers green tea' }],
      /not an evidence reference/,
    ],
    [
      'one bad citation among good ones',
      [
        { sourceRef: 'memory:mem-a', quote: 'prefers green tea' },
        { sourceRef: 'memory:mem-a', quote: 'prefers oolong tea' },
      ],
      /evidence\[1\]/,
    ],
  ])('rejects %s with a reason the model can act on', async (_name, citations, reason) => {
    const store = await seeded();
    const result = store.read((sql) => checkCitations(sql, 'a', citations));
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('treats Unicode normalization and line endings as encoding, not wording', async () => {
    const store = await createTestStore();
    memory(store, 'm', 'a', 'Meeting at the Café Zürich\nthen lunch');
    const decomposed = 'Cafe\u0301 Zu\u0308rich\r\nthen';
    expect(store.read((sql) => checkCitations(sql, 'a', [{ sourceRef: 'memory:m', quote: decomposed }]))).toMatchObject(
      { ok: true },
    );
  });

  it('accepts exactly the substrings of the evidence (property)', async () => {
    const store = await createTestStore();
    const text = 'The quarterly review moved to Thursday at 10:00 after the vendor delay; Priya approves the budget.';
    memory(store, 'm', 'a', text);
    await fc.assert(
      fc.asyncProperty(
        fc.nat(text.length),
        fc.integer({ min: 8, max: 60 }),
        fc.string({ minLength: 0, maxLength: 3 }),
        async (start, length, noise) => {
          const quote = text.slice(start, start + length) + noise;
          const result = store.read((sql) => checkCitations(sql, 'a', [{ sourceRef: 'memory:m', quote }]));
          const expected = quote.trim().length >= 8 && text.includes(quote);
          expect(result.ok).toBe(expected);
        },
      ),
    );
  });
});

describe('source references', () => {
  it('parses the known kinds and nothing else', () => {
    expect(parseSourceRef('transcript:chat:with:colons')).toEqual({ kind: 'transcript', id: 'chat:with:colons' });
    expect(parseSourceRef('import:rec-7')).toEqual({ kind: 'import', id: 'rec-7' });
    expect(parseSourceRef('memory:')).toBeUndefined();
    expect(parseSourceRef('Memory:1')).toBeUndefined();
    expect(parseSourceRef(42)).toBeUndefined();
  });
});
