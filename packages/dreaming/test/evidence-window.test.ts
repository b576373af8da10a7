import { contentHash, normalizeForHash } from '@memory/core';
import { completeTranscript, type Store, upsertTranscript } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore, insertMemory } from '@memory/store/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fragmentEnd } from '../src/evidence-window.js';
import { backlogTokens, recordDelivered, selectEvidence } from '../src/index.js';

const NOW = Date.UTC(2026, 0, 1);

function transcript(store: Store, agentId: string, key: string, content: string, at: number, completed = true) {
  store.write((sql) => {
    upsertTranscript(sql, { agentId, sessionKey: key, harness: null, project: null, now: at });
    if (completed)
      completeTranscript(sql, { agentId, sessionKey: key, content, contentHash: contentHash(content), now: at });
  });
}

function memory(
  store: Store,
  id: string,
  agentId: string,
  content: string,
  extra: { type?: 'fact' | 'document_chunk'; sourceType?: string } = {},
) {
  store.write((sql) =>
    insertMemory(sql, {
      id,
      agent_id: agentId,
      type: extra.type ?? 'fact',
      content,
      normalized_content: normalizeForHash(content),
      content_hash: contentHash(content),
      confidence: 1,
      importance: 0.5,
      tags: '[]',
      linked_entities: '[]',
      pinned: 0,
      source_type: extra.sourceType ?? null,
      created_at: NOW + 10,
      updated_at: NOW,
    }),
  );
}

const sentence = (i: number) => `Sentence number ${i} talks about the launch plan in some detail. `;

describe('fragment boundaries', () => {
  it('cuts at paragraph, then sentence, then word boundaries, and never exceeds the maximum', () => {
    const text = `${'a'.repeat(60)}\n\n${'b'.repeat(30)}. ${'c'.repeat(50)}`;
    expect(fragmentEnd(text, 0, 100)).toBe(62); // after the paragraph break
    expect(fragmentEnd('one two three. four five six seven', 0, 20)).toBe(15); // after "three. "
    expect(fragmentEnd('word '.repeat(10), 0, 12)).toBe(10);
    expect(fragmentEnd('x'.repeat(50), 0, 20)).toBe(20);
  });

  it('covers any text exactly, in order, with fragments within the limit (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.integer({ min: 1, max: 500 }), (text, max) => {
        let at = 0;
        const parts: string[] = [];
        while (at < text.length) {
          const end = fragmentEnd(text, at, max);
          expect(end).toBeGreaterThan(at);
          expect(end - at).toBeLessThanOrEqual(max);
          parts.push(text.slice(at, end));
          at = end;
        }
        expect(parts.join('')).toBe(text);
      }),
    );
  });
});

describe('evidence windows', () => {
  it('delivers the agent’s completed evidence oldest first, within the budget, and resumes where it stopped', async () => {
    const store = await createTestStore();
    const long = Array.from({ length: 100 }, (_, i) => sentence(i)).join('');
    transcript(store, 'a', 'old', 'user: the first conversation', NOW - 1000);
    transcript(store, 'a', 'long', long, NOW);
    transcript(store, 'a', 'open', 'user: still talking', NOW, false);
    transcript(store, 'b', 'other', 'user: private to b', NOW - 5000);
    memory(store, 'm1', 'a', 'Alice prefers tea.');
    memory(store, 'chunk', 'a', 'a document chunk', { type: 'document_chunk' });
    memory(store, 'mine', 'a', 'written by dreaming', { sourceType: 'dreaming' });

    const first = store.read((sql) => selectEvidence(sql, 'a', { budgetTokens: 1000, fragmentChars: 2000 }));
    expect(first.fragments[0]).toEqual({
      sourceRef: 'transcript:old',
      offset: 0,
      text: 'user: the first conversation',
    });
    expect(first.fragments.every((f) => f.text.length <= 2000)).toBe(true);
    expect(first.fragments.map((f) => f.sourceRef)).not.toContain('transcript:other');
    expect(first.fragments.map((f) => f.sourceRef)).not.toContain('transcript:open');
    expect(first.tokens).toBeLessThanOrEqual(1000);
    expect(first.more).toBe(true);
    const span = first.spans.find((s) => s.sourceRef === 'transcript:long');
    expect(span).toMatchObject({ from: 0, total: long.length });
    // Fragments of one source are contiguous and end at sentence boundaries.
    const longParts = first.fragments.filter((f) => f.sourceRef === 'transcript:long');
    expect(longParts.map((f) => f.text).join('')).toBe(long.slice(0, span?.to));
    expect(longParts.every((f) => f.text.endsWith('. '))).toBe(true);

    const before = store.read((sql) => backlogTokens(sql, 'a'));
    store.write((sql) => recordDelivered(sql, 'a', first.spans, NOW));
    expect(store.read((sql) => backlogTokens(sql, 'a'))).toBeLessThan(before);
    const second = store.read((sql) => selectEvidence(sql, 'a', { budgetTokens: 100_000, fragmentChars: 2000 }));
    expect(second.fragments[0]).toMatchObject({ sourceRef: 'transcript:long', offset: span?.to });
    expect(second.fragments.map((f) => f.sourceRef)).toEqual(expect.arrayContaining(['memory:m1']));
    expect(second.fragments.map((f) => f.sourceRef)).not.toEqual(expect.arrayContaining(['memory:chunk']));
    expect(second.fragments.map((f) => f.sourceRef)).not.toEqual(expect.arrayContaining(['memory:mine']));
    expect(second.more).toBe(false);
    store.write((sql) => recordDelivered(sql, 'a', second.spans, NOW));
    expect(store.read((sql) => backlogTokens(sql, 'a'))).toBe(0);
    expect(
      store.read((sql) => selectEvidence(sql, 'a', { budgetTokens: 100_000, fragmentChars: 2000 })).fragments,
    ).toEqual([]);
  });

  it('skips excluded sources', async () => {
    const store = await createTestStore();
    transcript(store, 'a', 'noise', 'user: spam spam spam', NOW);
    store.write((sql) =>
      sql.run(
        raw(
          "INSERT INTO dreaming_evidence_exclusions (agent_id, source_ref, reason, created_at) VALUES ('a', 'transcript:noise', 'spam', ?)",
          NOW,
        ),
      ),
    );
    expect(
      store.read((sql) => selectEvidence(sql, 'a', { budgetTokens: 1000, fragmentChars: 2000 })).fragments,
    ).toEqual([]);
  });
});
