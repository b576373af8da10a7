import { createSequentialIds } from '@memory/core';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeMemoryProgram } from '../../src/memory-writer/change-memory.js';
import type { MemoryWriteDeps } from '../../src/memory-writer/context.js';
import { createMemoriesProgram, type NewMemory, prepareContent } from '../../src/memory-writer/create-memories.js';
import { forgetMemoryProgram } from '../../src/memory-writer/forget-memory.js';
import { searchMemoriesLexicalProgram } from '../../src/repositories/lexical-search.js';
import { postgresTestServer } from '../support/postgres.js';
import { type MemoryBackend, openPgliteBackend, openServerBackend, openSqliteBackend } from './memory-backends.js';

// Lexical search on PostgreSQL is the same per-agent BM25 as on SQLite (same terms, same
// statistics, same arithmetic): both return the same ids with the same scores, and one agent's
// results never move when another agent writes.

const NOW = Date.UTC(2026, 0, 1);
const WORDS = ['okapi', 'kettle', 'garden', 'march', 'tea', 'painting', 'paints', 'river', 'the', 'blue', 'Zoë', 'zoe'];

const doc = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 9 }).map((w) => w.join(' '));
const query = fc.uniqueArray(fc.constantFrom(...WORDS.map((w) => w.toLowerCase())), { minLength: 1, maxLength: 3 });

const fact = (agentId: string, content: string): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: {},
});

const deps = (prefix: string): MemoryWriteDeps => ({
  ids: createSequentialIds(prefix),
  vectorAvailable: false,
  inlineEntityLinking: false,
});

const searchOf = (agentId: string, tokens: string[], matching: 'any' | 'all', limit: number) =>
  searchMemoriesLexicalProgram({
    agentId,
    terms: { tokens, phrases: [] } as never,
    matching,
    filters: {},
    now: NOW,
    limit,
  });

// PGlite always; the run's PostgreSQL server too when there is one.
const server = await postgresTestServer();
let sqlite: MemoryBackend;
let postgres: MemoryBackend;
let postgresServer: MemoryBackend | undefined;
beforeAll(async () => {
  [sqlite, postgres, postgresServer] = await Promise.all([
    openSqliteBackend(),
    openPgliteBackend(),
    server.available ? openServerBackend() : undefined,
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([sqlite?.close(), postgres?.close(), postgresServer?.close()]);
});

/** Applies one history of writes (creates, then a change and a forget) to a backend. */
async function applyHistory(
  db: MemoryBackend,
  run: string,
  agents: ReadonlyArray<readonly string[]>,
  edits: { change: number; forget: number; replacement: string },
): Promise<string[]> {
  const d = deps(`${run}-`);
  const memories = agents.flatMap((docs, a) => docs.map((content) => fact(`${run}-a${a}`, content)));
  const created = await db.write((t) => createMemoriesProgram(t, d, memories, NOW));
  const live = created.filter((c) => !c.deduped).map((c) => c.id);
  const owner = (id: string) => memories[created.findIndex((c) => c.id === id)]?.agentId as string;
  const changed = live[edits.change % live.length];
  if (changed)
    await db
      .write((t) =>
        changeMemoryProgram(
          t,
          d,
          { agentId: owner(changed), id: changed, content: prepareContent(edits.replacement), audit: {} },
          NOW,
        ),
      )
      .catch(() => undefined); // a replacement equal to another live memory is a conflict: the same on both
  const forgotten = live[edits.forget % live.length];
  if (forgotten && forgotten !== changed)
    await db.write((t) => forgetMemoryProgram(t, d, { agentId: owner(forgotten), id: forgotten, audit: {} }, NOW));
  return live;
}

describe('lexical search: SQLite and PostgreSQL agree', () => {
  let runs = 0;
  let hits = 0;
  it('returns the same ids with the same scores for the same writes (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(doc, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        fc.record({ change: fc.nat(), forget: fc.nat(), replacement: doc }),
        query,
        fc.constantFrom<'any' | 'all'>('any', 'all'),
        fc.integer({ min: 1, max: 8 }),
        async (agents, edits, tokens, matching, limit) => {
          const run = `r${++runs}`;
          const others = postgresServer ? [postgres, postgresServer] : [postgres];
          await applyHistory(sqlite, run, agents, edits);
          for (const db of others) await applyHistory(db, run, agents, edits);
          for (let a = 0; a < agents.length; a++) {
            const agentId = `${run}-a${a}`;
            const onSqlite = await sqlite.read(() => searchOf(agentId, tokens, matching, limit));
            for (const db of others) {
              const onPostgres = await db.read(() => searchOf(agentId, tokens, matching, limit));
              expect(onPostgres.map((h) => [h.id, h.bm25, h.content])).toEqual(
                onSqlite.map((h) => [h.id, h.bm25, h.content]),
              );
            }
            hits += onSqlite.length;
          }
        },
      ),
      { numRuns: 25 },
    );
    // The comparison is not vacuous: most runs find something.
    expect(hits).toBeGreaterThan(25);
  }, 120_000);

  it('finds stemmed and diacritic-folded forms alike on both', async () => {
    const d = () => deps('fold-');
    const docs = [
      fact('fold', 'Zoë paints the river'),
      fact('fold', 'painting a blue kettle'),
      fact('fold', 'zoe drinks tea'),
    ];
    await sqlite.write((t) => createMemoriesProgram(t, d(), docs, NOW));
    await postgres.write((t) => createMemoriesProgram(t, d(), docs, NOW));
    for (const tokens of [['painting'], ['zoe'], ['zoë', 'tea']]) {
      const a = await sqlite.read(() => searchOf('fold', tokens, 'any', 10));
      const b = await postgres.read(() => searchOf('fold', tokens, 'any', 10));
      expect(b.length).toBeGreaterThan(0);
      expect(b.map((h) => [h.id, h.bm25])).toEqual(a.map((h) => [h.id, h.bm25]));
    }
  });
});

describe('lexical search filters: SQLite and PostgreSQL agree', () => {
  let runs = 0;
  let hits = 0;
  const TYPES = ['fact', 'decision', 'preference'] as const;
  const TAGS = ['red', 'green', 'blue'];
  const attributes = fc.record({
    type: fc.constantFrom(...TYPES),
    tags: fc.subarray(TAGS),
    pinned: fc.boolean(),
    importance: fc.constantFrom(0.1, 0.5, 0.9),
    age: fc.integer({ min: 0, max: 5 }),
    project: fc.constantFrom(undefined, 'kestrel'),
    expires: fc.constantFrom(undefined, NOW - 1, NOW + 1),
  });
  // One or two filters at a time (all of them together leave nothing to compare).
  const filterValues = fc.record({
    types: fc.subarray([...TYPES], { minLength: 1 }),
    tags: fc.subarray(TAGS, { minLength: 1, maxLength: 2 }),
    pinned: fc.boolean(),
    importanceMin: fc.constantFrom(0.3, 0.6),
    since: fc.constant(NOW - 3),
    until: fc.constant(NOW - 1),
    windowStart: fc.constant(NOW - 2),
    project: fc.constant('kestrel'),
  });
  const filters = fc
    .tuple(
      filterValues,
      fc.subarray(['types', 'tags', 'pinned', 'importanceMin', 'since', 'until', 'windowStart', 'project'] as const, {
        minLength: 1,
        maxLength: 2,
      }),
    )
    .map(([values, keys]) => Object.fromEntries(keys.map((k) => [k, values[k]])));

  it('returns the same filtered ids and scores (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(doc, attributes), { minLength: 1, maxLength: 25 }),
        query,
        filters,
        fc.integer({ min: 1, max: 8 }),
        async (rows, tokens, chosen, limit) => {
          const agentId = `flt${++runs}`;
          const memories = rows.map(([content, a]) => ({
            ...fact(agentId, content),
            type: a.type,
            tags: a.tags,
            pinned: a.pinned,
            importance: a.importance,
            project: a.project ?? null,
            expiresAt: a.expires ?? null,
            createdAt: NOW - a.age,
          }));
          const others = postgresServer ? [postgres, postgresServer] : [postgres];
          for (const db of [sqlite, ...others])
            await db.write((t) => createMemoriesProgram(t, deps(`${agentId}-`), memories, NOW));
          const params = {
            agentId,
            terms: { tokens, phrases: [] } as never,
            matching: 'any' as const,
            filters: chosen,
            now: NOW,
            limit,
          };
          const expected = await sqlite.read(() => searchMemoriesLexicalProgram(params));
          for (const db of others) {
            const got = await db.read(() => searchMemoriesLexicalProgram(params));
            expect(got.map((h) => [h.id, h.bm25])).toEqual(expected.map((h) => [h.id, h.bm25]));
          }
          hits += expected.length;
        },
      ),
      { numRuns: 40 },
    );
    expect(hits).toBeGreaterThan(10);
  }, 120_000);
});

describe('lexical search on PostgreSQL is scope-pure', () => {
  let runs = 0;
  let hits = 0;
  it('another agent’s writes never change an agent’s results or scores (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(doc, { minLength: 1, maxLength: 10 }),
        fc.array(doc, { minLength: 1, maxLength: 20 }),
        query,
        fc.integer({ min: 1, max: 6 }),
        async (mine, theirs, tokens, limit) => {
          const run = `p${++runs}`;
          const me = `${run}-me`;
          await postgres.write((t) =>
            createMemoriesProgram(
              t,
              deps(`${run}-m`),
              mine.map((c) => fact(me, c)),
              NOW,
            ),
          );
          const before = await postgres.read(() => searchOf(me, tokens, 'any', limit));
          // Another agent writes the same words, more of them, and forgets one.
          const other = `${run}-other`;
          const created = await postgres.write((t) =>
            createMemoriesProgram(
              t,
              deps(`${run}-o`),
              [...theirs, ...mine].map((c) => fact(other, c)),
              NOW,
            ),
          );
          const first = created.find((c) => !c.deduped);
          if (first)
            await postgres.write((t) =>
              forgetMemoryProgram(t, deps(`${run}-f`), { agentId: other, id: first.id, audit: {} }, NOW),
            );
          const after = await postgres.read(() => searchOf(me, tokens, 'any', limit));
          expect(after.map((h) => [h.id, h.bm25])).toEqual(before.map((h) => [h.id, h.bm25]));
          hits += before.length;
        },
      ),
      { numRuns: 30 },
    );
    expect(hits).toBeGreaterThan(30);
  }, 120_000);
});
