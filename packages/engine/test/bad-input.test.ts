import { normalizeForHash } from '@memory/core';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../src/index.js';
import { createTestEngine, snapshotCounts } from './helpers.js';

async function hostEngine(config = {}) {
  const db = new Database(':memory:');
  const { engine } = await createTestEngine({ database: { database: db }, config });
  await engine.remember({ agentId: 'a', content: 'Baseline memory about caching and node.js servers' });
  return { engine, db };
}

describe('bad input to remember', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['empty content', { agentId: 'a', content: '' }],
    ['whitespace content', { agentId: 'a', content: ' \n\t ' }],
    ['punctuation-only content', { agentId: 'a', content: ' ?!. ' }],
    ['lone surrogate in content', { agentId: 'a', content: 'broken \uD800 text' }],
    ['oversized content', { agentId: 'a', content: 'x'.repeat(1025) }],
    ['non-string content', { agentId: 'a', content: 42 }],
    ['unknown type', { agentId: 'a', content: 'ok', type: 'gossip' }],
    ['importance above 1', { agentId: 'a', content: 'ok', importance: 1.5 }],
    ['negative importance', { agentId: 'a', content: 'ok', importance: -0.1 }],
    ['NaN importance', { agentId: 'a', content: 'ok', importance: Number.NaN }],
    ['missing agent', { content: 'ok' }],
    ['blank agent', { agentId: '  ', content: 'ok' }],
    ['agent with control chars', { agentId: 'a\u0000b', content: 'ok' }],
    ['unknown key', { agentId: 'a', content: 'ok', extractionModel: 'x' }],
    ['too many tags', { agentId: 'a', content: 'ok', tags: Array.from({ length: 40 }, (_, i) => `t${i}`) }],
    ['bad linked entity', { agentId: 'a', content: 'ok', linkedEntities: [{ type: 'contact' }] }],
    ['bad createdAt', { agentId: 'a', content: 'ok', createdAt: 'yesterday-ish' }],
  ];
  it.each(cases)('%s → INVALID_INPUT with nothing written', async (_name, input) => {
    const { engine, db } = await hostEngine({ limits: { maxContentBytes: 1024 } });
    const before = snapshotCounts(db);
    await expect(engine.remember(input as never)).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_INPUT'));
    expect(snapshotCounts(db)).toEqual(before);
  });

  it('counts the content cap in UTF-8 bytes', async () => {
    const { engine } = await createTestEngine({ config: { limits: { maxContentBytes: 8 } } });
    await expect(engine.remember({ agentId: 'a', content: '🙂🙂🙂' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.remember({ agentId: 'a', content: '🙂🙂' })).resolves.toMatchObject({ deduped: false });
  });
});

describe('hostile recall queries', () => {
  const queries = [
    '?!?!...',
    '"',
    'hello "world',
    'foo:bar',
    'well-known',
    '-known',
    'e-mail',
    'AND',
    'OR zurich',
    'NOT',
    'c++',
    'node.js',
    '-',
    ':',
    'NEAR(',
    'NEAR(a b',
    '(cafe',
    'cafe)',
    "'",
    '*',
    'caf*',
    '^cafe',
    'title:cafe',
    '🙂🔥',
    '\u0000',
    'DROP TABLE memories;--',
    'x'.repeat(5000),
    Array.from({ length: 1000 }, (_, i) => `w${i}`).join(' '),
  ];
  it.each(queries.map((q) => [q.length > 40 ? `${q.slice(0, 20)}… (${q.length} chars)` : q, q]))(
    '%s → results or empty, never an error',
    async (_label, query) => {
      const { engine, db } = await hostEngine();
      const before = snapshotCounts(db);
      const response = await engine.recall({ agentId: 'a', query });
      expect(Array.isArray(response.results)).toBe(true);
      expect(response.query.tokens.length).toBeLessThanOrEqual(24);
      expect(snapshotCounts(db)).toEqual(before);
    },
  );

  it('finds what a hostile-looking query asks for', async () => {
    const { engine } = await hostEngine();
    expect((await engine.recall({ agentId: 'a', query: 'node.js AND "caching' })).results).toHaveLength(1);
  });

  it('rejects a query over the character cap and an empty one', async () => {
    const { engine } = await hostEngine();
    await expect(engine.recall({ agentId: 'a', query: 'x'.repeat(8193) })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.recall({ agentId: 'a', query: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.recall({ agentId: 'a', query: 7 } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it.each([
    ['limit 0', { limit: 0 }, /limit/],
    ['limit over the max', { limit: 51 }, /at most 50/],
    ['importance out of range', { importanceMin: 2 }, /importanceMin/],
    ['a zero window', { windowDays: 0 }, /windowDays/],
    ['since after until', { since: 10, until: 5 }, /since must be before until/],
    ['a malformed host reference', { linkedEntities: [{ type: 'contact' }] }, /refId/],
    ['an unknown option', { fuzzy: true }, /fuzzy/],
  ])('rejects %s with INVALID_INPUT naming the field', async (_name, extra, message) => {
    const { engine } = await hostEngine();
    await expect(engine.recall({ agentId: 'a', query: 'tea', ...extra } as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(message),
    });
  });
});

describe('arbitrary strings (property)', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.string({ unit: 'binary', maxLength: 300 }),
    fc.constantFrom('NEAR(', '"a', 'a:b', '-x', '*', 'AND OR', ' '),
  );

  it('recall returns an array or INVALID_INPUT and never changes the database', async () => {
    const { engine, db } = await hostEngine();
    const before = snapshotCounts(db);
    await fc.assert(
      fc.asyncProperty(text, async (query) => {
        try {
          const response = await engine.recall({ agentId: 'a', query });
          expect(Array.isArray(response.results)).toBe(true);
        } catch (error) {
          expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
    expect(snapshotCounts(db)).toEqual(before);
  });

  it('remember stores the text (found again by id) or fails with INVALID_INPUT writing nothing', async () => {
    const { engine, db } = await hostEngine();
    await fc.assert(
      fc.asyncProperty(text, async (content) => {
        const before = snapshotCounts(db);
        try {
          const { id, deduped } = await engine.remember({ agentId: 'a', content });
          const stored = await engine.getMemory({ agentId: 'a', id });
          if (deduped) {
            expect(normalizeForHash(stored?.content ?? '')).toBe(normalizeForHash(content));
            expect(snapshotCounts(db)).toEqual(before);
          } else {
            expect(stored?.content).toBe(content.replace(/\s+/gu, ' ').trim());
            expect(snapshotCounts(db)['memories']).toBe((before['memories'] ?? 0) + 1);
          }
        } catch (error) {
          expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
          expect(snapshotCounts(db)).toEqual(before);
        }
      }),
      { numRuns: 300 },
    );
  });
});
