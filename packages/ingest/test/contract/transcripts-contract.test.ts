import { defaultConfig, isMemoryError } from '@memory/core';
import { deleteSourceTranscriptsProgram, deleteTranscriptProgram, openStore } from '@memory/store';
import { copySqliteToPostgres } from '@memory/store/postgres';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTranscriptSchemas } from '../../src/transcripts/inputs.js';
import { createTranscripts, type Transcripts } from '../../src/transcripts/transcripts.js';
import { BACKENDS, type ContractSetup, T0 } from './backends.js';

// One suite of transcript behaviour on SQLite, PGlite and a real PostgreSQL server: capture,
// completion (explicit and idle), reading, listing, search (with the scope-pure rule and the same
// scores on every dialect) and deletion with the search index kept exact.

const config = defaultConfig;
const transcriptsOf = (store: ContractSetup['store']) =>
  createTranscripts({ store, config, schemas: createTranscriptSchemas(config) });

/** A conversation whose turns share words at different frequencies (so BM25 orders them). */
const TURNS = [
  { role: 'user', content: 'Alice likes green tea in the morning' },
  { role: 'assistant', content: 'Noted: green tea, morning, Alice.' },
  { role: 'tool', content: '{"lookup":"tea"}' },
  { role: 'user', content: 'Bob prefers coffee; Alice prefers tea over coffee' },
  { role: 'assistant', content: 'Tea for Alice and coffee for Bob.' },
];

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip !== undefined)(`transcripts on ${backend.name}`, () => {
    let setup: ContractSetup;
    let transcripts: Transcripts;
    beforeAll(() => backend.beforeAll(), 120_000);
    afterAll(() => backend.afterAll());
    afterEach(() => backend.afterEach());
    const open = async () => {
      setup = await backend.setup();
      transcripts = transcriptsOf(setup.store);
      return transcripts;
    };

    it('appends idempotently, drops tool turns, refuses appends once completed, and stays in its scope', async () => {
      const t = await open();
      const first = await t.append({ agentId: 'a', sessionKey: 's1', project: 'p', turns: TURNS });
      expect(first).toEqual({ sessionKey: 's1', appended: 4, duplicates: 0, dropped: 1 });
      // The same turns again (no ids: role, content and time identify them), plus one new with an id.
      const again = await t.append({
        agentId: 'a',
        sessionKey: 's1',
        turns: [...TURNS.slice(0, 2), { role: 'user', content: 'and scones', id: 'x1', at: T0 }],
      });
      expect(again).toEqual({ sessionKey: 's1', appended: 1, duplicates: 2, dropped: 0 });
      // A turn repeated within one call is stored once; seqs stay contiguous.
      const repeated = { role: 'assistant', content: 'twice', id: 'x2' } as const;
      const last = { role: 'user', content: 'after' } as const;
      expect(await t.append({ agentId: 'a', sessionKey: 's1', turns: [repeated, last, repeated] })).toMatchObject({
        appended: 2,
        duplicates: 1,
      });
      const got = await t.get({ agentId: 'a', sessionKey: 's1' });
      expect(got).toMatchObject({ project: 'p', turnCount: 7, completedAt: null, createdAt: T0 });
      expect(got?.turns.map((x) => x.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(got?.content).toBe(
        'user: Alice likes green tea in the morning\n\nassistant: Noted: green tea, morning, Alice.\n\n' +
          'user: Bob prefers coffee; Alice prefers tea over coffee\n\nassistant: Tea for Alice and coffee for Bob.\n\n' +
          'user: and scones\n\nassistant: twice\n\nuser: after',
      );
      expect(await t.get({ agentId: 'b', sessionKey: 's1' })).toBeUndefined();

      setup.clock.advance(10);
      expect(await t.complete({ agentId: 'a', sessionKey: 's1' })).toEqual({ completed: true });
      expect(await t.complete({ agentId: 'a', sessionKey: 's1' })).toEqual({ completed: false });
      const done = await t.get({ agentId: 'a', sessionKey: 's1' });
      expect(done).toMatchObject({ completedAt: T0 + 10, content: got?.content });
      expect(done?.contentHash).toMatch(/^[0-9a-f]{64}$/);
      const refused = await t.append({ agentId: 'a', sessionKey: 's1', turns: TURNS }).catch((e: unknown) => e);
      expect(isMemoryError(refused, 'CONFLICT')).toBe(true);
      // Another scope's session is missing, not someone else's.
      const missing = await t.complete({ agentId: 'b', sessionKey: 's1' }).catch((e: unknown) => e);
      expect(isMemoryError(missing, 'NOT_FOUND')).toBe(true);
    });

    it('lists newest activity first, in byte order of keys on ties, with filters and keyset pages', async () => {
      const t = await open();
      // Same updated_at for all: the order is the keys' byte order ('B' < '_' < 'a' < 'b').
      for (const key of ['b', 'a', '_', 'B'])
        await t.append({ agentId: 'a', sessionKey: key, project: key === 'a' ? 'x' : 'y', turns: TURNS.slice(0, 1) });
      setup.clock.advance(5);
      await t.append({ agentId: 'a', sessionKey: 'later', turns: TURNS.slice(0, 2) });
      await t.append({ agentId: 'other', sessionKey: 'theirs', turns: TURNS.slice(0, 1) });
      await t.complete({ agentId: 'a', sessionKey: 'b' });
      const all = await t.list({ agentId: 'a' });
      expect(all.map((s) => [s.sessionKey, s.turnCount])).toEqual([
        ['b', 1], // completing is activity
        ['later', 2],
        ['B', 1],
        ['_', 1],
        ['a', 1],
      ]);
      const page1 = await t.list({ agentId: 'a', limit: 3 });
      const last = page1[2];
      if (!last) throw new Error('expected three sessions');
      const page2 = await t.list({
        agentId: 'a',
        limit: 3,
        after: { updatedAt: last.updatedAt, sessionKey: last.sessionKey },
      });
      expect([...page1, ...page2].map((s) => s.sessionKey)).toEqual(all.map((s) => s.sessionKey));
      expect((await t.list({ agentId: 'a', project: 'x' })).map((s) => s.sessionKey)).toEqual(['a']);
      expect((await t.list({ agentId: 'a', completed: true })).map((s) => s.sessionKey)).toEqual(['b']);
      expect((await t.list({ agentId: 'a', completed: false })).map((s) => s.sessionKey)).toEqual([
        'later',
        'B',
        '_',
        'a',
      ]);
    });

    it('completes idle sessions in bounded batches and leaves active ones open', async () => {
      const t = await open();
      for (let i = 0; i < 5; i++)
        await t.append({ agentId: `a${i % 2}`, sessionKey: `old-${i}`, turns: TURNS.slice(0, 1) });
      setup.clock.advance(config.transcripts.idleCompleteMs);
      await t.append({ agentId: 'a0', sessionKey: 'fresh', turns: TURNS.slice(0, 1) });
      setup.clock.advance(1);
      expect(await t.completeIdle()).toBe(5);
      expect((await t.list({ agentId: 'a0', completed: false })).map((s) => s.sessionKey)).toEqual(['fresh']);
      const old = await t.get({ agentId: 'a1', sessionKey: 'old-1' });
      expect(old?.completedAt).toBe(T0 + config.transcripts.idleCompleteMs + 1);
      expect(old?.content).toBe('user: Alice likes green tea in the morning');
      expect(await t.completeIdle()).toBe(0);
    });

    it('searches one agent’s turns by BM25; another agent’s turns change neither scores nor order', async () => {
      const t = await open();
      await t.append({ agentId: 'a', sessionKey: 's1', turns: TURNS });
      await t.append({ agentId: 'a', sessionKey: 's2', turns: [{ role: 'user', content: 'coffee coffee coffee' }] });
      await t.complete({ agentId: 'a', sessionKey: 's1' });
      const query = { agentId: 'a', query: 'Alice tea coffee' };
      // Completed sessions only by default; every session with completedOnly: false.
      const before = await t.search(query);
      expect(before.map((h) => [h.sessionKey, h.seq])).toEqual([
        ['s1', 3],
        ['s1', 4],
        ['s1', 2], // shorter than turn 1, with the same terms
        ['s1', 1],
      ]);
      const open_ = await t.search({ ...query, completedOnly: false });
      expect(open_.map((h) => h.sessionKey)).toContain('s2');
      for (const h of before) expect(h.score).toBeGreaterThan(0);
      for (let i = 1; i < before.length; i++)
        expect((before[i - 1] as { score: number }).score).toBeGreaterThanOrEqual(
          (before[i] as { score: number }).score,
        );
      // Another agent writes the same words, many times: agent a's scores are the same numbers.
      for (let i = 0; i < 6; i++)
        await t.append({ agentId: 'b', sessionKey: `b${i}`, turns: [{ role: 'user', content: 'tea tea Alice' }] });
      await t.completeIdle();
      expect(await t.search(query)).toEqual(before);
      expect(await t.search({ agentId: 'b', query: 'coffee' })).toEqual([]);
      expect(await t.search({ agentId: 'a', query: 'zebra' })).toEqual([]);
    });

    it('gives the same hits, order and scores as SQLite for the same turns', async () => {
      const t = await open();
      const sqlite = await openStore({ path: ':memory:', clock: setup.clock });
      try {
        const reference = transcriptsOf(sqlite);
        for (const target of [t, reference]) {
          for (let i = 0; i < 12; i++)
            await target.append({
              agentId: 'a',
              sessionKey: `s${i % 3}`,
              turns: [
                { role: i % 2 ? 'assistant' : 'user', content: `tea ${'coffee '.repeat(i % 4)} Alice ${i} scones` },
              ],
            });
          await target.append({
            agentId: 'z',
            sessionKey: 'noise',
            turns: [{ role: 'user', content: 'tea '.repeat(30) }],
          });
        }
        for (const query of ['tea', 'coffee Alice', 'scones 7', 'Alice tea coffee scones'])
          expect(await t.search({ agentId: 'a', query, completedOnly: false, limit: 5 })).toEqual(
            await reference.search({ agentId: 'a', query, completedOnly: false, limit: 5 }),
          );
      } finally {
        sqlite.close();
      }
    });

    it.skipIf(backend.name === 'sqlite')(
      'reads and searches a SQLite store’s transcripts copied into PostgreSQL',
      async () => {
        const t = await open();
        const sqlite = await openStore({ path: ':memory:', clock: setup.clock });
        try {
          const source = transcriptsOf(sqlite);
          await source.append({ agentId: 'a', sessionKey: 's1', turns: TURNS });
          await source.complete({ agentId: 'a', sessionKey: 's1' });
          await source.append({ agentId: 'a', sessionKey: 's2', turns: TURNS.slice(0, 2) });
          const report = await copySqliteToPostgres({
            from: sqlite,
            to: setup.postgres as NonNullable<ContractSetup['postgres']>,
          });
          expect(report.verified).toBe(true);
          for (const key of ['s1', 's2'])
            expect(await t.get({ agentId: 'a', sessionKey: key })).toEqual(
              await source.get({ agentId: 'a', sessionKey: key }),
            );
          expect(await t.search({ agentId: 'a', query: 'Alice coffee', completedOnly: false })).toEqual(
            await source.search({ agentId: 'a', query: 'Alice coffee', completedOnly: false }),
          );
          // Appends after the copy continue the copied seqs and statistics.
          await t.append({ agentId: 'a', sessionKey: 's2', turns: [{ role: 'user', content: 'more coffee' }] });
          await source.append({ agentId: 'a', sessionKey: 's2', turns: [{ role: 'user', content: 'more coffee' }] });
          expect(await t.search({ agentId: 'a', query: 'coffee', completedOnly: false })).toEqual(
            await source.search({ agentId: 'a', query: 'coffee', completedOnly: false }),
          );
        } finally {
          sqlite.close();
        }
      },
    );

    // Two stores on one PGlite share its one session (advisory locks are per session): server only.
    it.skipIf(backend.name !== 'postgres server')(
      'keeps every turn and exact statistics when two stores append to one agent at once',
      async () => {
        const t = await open();
        const other = transcriptsOf(await (setup.another as NonNullable<ContractSetup['another']>)());
        const writes = [t, other].flatMap((target, w) =>
          Array.from({ length: 8 }, (_, i) =>
            target.append({
              agentId: 'a',
              sessionKey: `s${i % 2}`,
              turns: [{ role: 'user', content: `writer ${w} turn ${i} tea`, id: `${w}-${i}` }],
            }),
          ),
        );
        const results = await Promise.all(writes);
        expect(results.every((r) => r.appended === 1)).toBe(true);
        const sessions = await t.list({ agentId: 'a' });
        expect(sessions.map((s) => s.turnCount).reduce((a, b) => a + b, 0)).toBe(16);
        const scope = await setup.sql<{ docs: number }>(
          "SELECT docs FROM text_scopes WHERE corpus = 'turn' AND agent_id = 'a'",
        );
        expect(Number(scope[0]?.docs)).toBe(16);
        expect((await t.search({ agentId: 'a', query: 'tea', completedOnly: false, limit: 50 })).length).toBe(16);
      },
    );

    it('deletes sessions (one, or a source’s) with their turns and their share of the search statistics', async () => {
      const t = await open();
      await t.append({ agentId: 'a', sessionKey: 'keep', turns: TURNS.slice(0, 2) });
      await t.append({ agentId: 'a', sessionKey: 'drop', turns: TURNS.slice(3) });
      const scopeBefore = await setup.sql<{ docs: number; tokens: number }>(
        "SELECT docs, tokens FROM text_scopes WHERE corpus = 'turn' AND agent_id = 'a'",
      );
      const { store } = setup;
      expect(await store.db.write(() => deleteTranscriptProgram(store.dialect, 'b', 'drop'))).toBe(false);
      expect(await store.db.write(() => deleteTranscriptProgram(store.dialect, 'a', 'drop'))).toBe(true);
      expect(await t.get({ agentId: 'a', sessionKey: 'drop' })).toBeUndefined();
      expect(await t.search({ agentId: 'a', query: 'coffee Bob', completedOnly: false })).toEqual([]);
      const scope = await setup.sql<{ docs: number; tokens: number }>(
        "SELECT docs, tokens FROM text_scopes WHERE corpus = 'turn' AND agent_id = 'a'",
      );
      expect(Number(scope[0]?.docs)).toBe(2);
      expect(Number(scope[0]?.tokens)).toBeLessThan(Number(scopeBefore[0]?.tokens));
      // What is left ranks as if the deleted session had never been written.
      const fresh = await backend.setup();
      const reference = transcriptsOf(fresh.store);
      await reference.append({ agentId: 'a', sessionKey: 'keep', turns: TURNS.slice(0, 2) });
      const strip = (hits: Awaited<ReturnType<Transcripts['search']>>) => hits.map(({ seq: _seq, ...h }) => h);
      expect(strip(await t.search({ agentId: 'a', query: 'green tea Alice', completedOnly: false }))).toEqual(
        strip(await reference.search({ agentId: 'a', query: 'green tea Alice', completedOnly: false })),
      );
      // A source's sessions go together.
      await setup.sql("UPDATE session_transcripts SET source_id = 'import:x' WHERE agent_id = 'a'");
      expect(await store.db.write(() => deleteSourceTranscriptsProgram(store.dialect, 'a', 'import:x'))).toBe(1);
      const postings = await setup.sql<{ n: number }>('SELECT count(*) AS n FROM text_postings');
      expect(Number(postings[0]?.n)).toBe(0);
    });
  });
}
