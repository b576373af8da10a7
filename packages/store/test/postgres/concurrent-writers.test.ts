import { createSequentialIds } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryScopeLockKeys, POSTGRES_WRITER } from '../../src/memory-writer/context.js';
import { createMemoriesProgram, prepareContent } from '../../src/memory-writer/create-memories.js';
import { forgetMemoryProgram } from '../../src/memory-writer/forget-memory.js';
import type { PostgresStore } from '../../src/postgres.js';
import { all, get, perDialect, portable } from '../../src/program/program.js';
import { raw } from '../../src/sql.js';
import { textTerms } from '../../src/text-terms.js';
import { postgresTestServer } from '../support/postgres.js';
import { openServerStores } from './memory-backends.js';

// Many writers on one PostgreSQL database: SQLite's single writer made scoped dedup trivially
// exact; here SERIALIZABLE transactions, the unique partial index and the store's retry must make it
// so. Needs a real server (PGlite has one connection).

const server = await postgresTestServer();
const NOW = Date.UTC(2026, 0, 1);

describe.skipIf(!server.available)(
  `concurrent memory writers on a PostgreSQL server${server.available ? '' : ` (skipped: ${server.reason})`}`,
  () => {
    let opened: Awaited<ReturnType<typeof openServerStores>>;
    let stores: PostgresStore[];
    beforeAll(async () => {
      opened = await openServerStores(2);
      stores = opened.stores;
    }, 120_000);
    afterAll(async () => {
      await opened?.close();
    });

    const remember = (store: PostgresStore, writer: string, agentId: string, content: string, locked = true) =>
      store.write(
        () =>
          createMemoriesProgram(
            POSTGRES_WRITER,
            { ids: createSequentialIds(writer), vectorAvailable: false, inlineEntityLinking: false },
            [{ agentId, content: prepareContent(content), type: 'fact', importance: 0.5, audit: {} }],
            NOW,
          ),
        locked ? { lockKeys: memoryScopeLockKeys([agentId]) } : {},
      );

    it('two writers remembering the same content at once, without scope locks: one memory, one deduped', async () => {
      // SERIALIZABLE alone: the second insert waits on the unique index, fails serialization, and
      // its retry finds the first one's row.
      for (let i = 0; i < 10; i++) {
        const content = `Pair fact ${i}.`;
        const [[a], [b]] = await Promise.all([
          remember(stores[0] as PostgresStore, `p1-${i}`, 'pair', content, false),
          remember(stores[1] as PostgresStore, `p2-${i}`, 'pair', content, false),
        ]);
        expect([a?.deduped, b?.deduped].sort()).toEqual([false, true]);
        expect(a?.id).toBe(b?.id);
      }
      const n = await (stores[0] as PostgresStore).read(() =>
        get<{ n: number }>(portable('SELECT count(*) AS n FROM memories WHERE agent_id = ?', 'pair')),
      );
      expect(n).toEqual({ n: 10 });
    }, 120_000);

    it('48 writers of one scope at once, with scope locks: each content one memory, one deduped', async () => {
      const contents = Array.from({ length: 24 }, (_, i) => `Shared fact number ${i} about the okapi.`);
      const results = await Promise.all(
        contents.flatMap((content, i) => [
          remember(stores[0] as PostgresStore, `w1-${i}`, 'race', content),
          remember(stores[1] as PostgresStore, `w2-${i}`, 'race', content),
        ]),
      );
      for (let i = 0; i < contents.length; i++) {
        const [a, b] = [results[2 * i]?.[0], results[2 * i + 1]?.[0]];
        expect([a?.deduped, b?.deduped].sort()).toEqual([false, true]);
        expect(a?.id).toBe(b?.id);
      }
      const store = stores[0] as PostgresStore;
      const counts = await store.read(() =>
        get<{ memories: number; history: number }>(
          portable(
            `SELECT (SELECT count(*) FROM memories WHERE agent_id = ?) AS memories,
                  (SELECT count(*) FROM memory_history WHERE agent_id = ?) AS history`,
            'race',
            'race',
          ),
        ),
      );
      expect(counts).toEqual({ memories: contents.length, history: contents.length });
      // The text index and the counts saw every commit once.
      const scope = await store.read(() =>
        get<{ scope: number; docs: number; tokens: number }>(
          portable("SELECT scope, docs, tokens FROM text_scopes WHERE corpus = 'memory' AND agent_id = ?", 'race'),
        ),
      );
      const tokens = contents.reduce((sum, c) => sum + textTerms(c).length, 0);
      expect(scope).toMatchObject({ docs: contents.length, tokens });
      const live = await store.read(() =>
        get(portable("SELECT n FROM memory_counts WHERE agent_id = ? AND kind = 'live'", 'race')),
      );
      expect(live).toEqual({ n: contents.length });
    }, 120_000);

    it('writers of different scopes at once, without locks, all commit (conflicts between them are retried)', async () => {
      const results = await Promise.all(
        Array.from({ length: 32 }, (_, i) =>
          remember(stores[i % 2] as PostgresStore, `s-${i}`, `scope-${i}`, `First words of scope ${i}.`, false),
        ),
      );
      expect(results.map((r) => r[0]?.deduped)).toEqual(Array(32).fill(false));
      const scopes = await (stores[0] as PostgresStore).read(() =>
        all<{ docs: number }>(
          portable("SELECT docs FROM text_scopes WHERE corpus = 'memory' AND agent_id LIKE 'scope-%'"),
        ),
      );
      expect(scopes.map((s) => s.docs)).toEqual(Array(32).fill(1));
    }, 120_000);

    it('a write that fails releases its scope lock (the next writer of the scope is not kept waiting)', async () => {
      const [a, b] = stores as [PostgresStore, PostgresStore];
      const failing = await a
        .write(
          () =>
            createMemoriesProgram(
              POSTGRES_WRITER,
              { ids: createSequentialIds('bad'), vectorAvailable: false, inlineEntityLinking: false },
              // importance out of range: the CHECK constraint fails inside the transaction
              [
                {
                  agentId: 'locked',
                  content: prepareContent('Too important.'),
                  type: 'fact',
                  importance: 2,
                  audit: {},
                },
              ],
              NOW,
            ),
          { lockKeys: memoryScopeLockKeys(['locked']) },
        )
        .catch((e: unknown) => e);
      expect((failing as { code?: string }).code).toBe('STORAGE_ERROR');
      const held = await b.read(() =>
        get<{ n: number }>(
          perDialect(
            raw('SELECT 1'),
            raw(
              `SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND granted
               AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
            ),
          ),
        ),
      );
      expect(held).toEqual({ n: 0 });
      const [created] = await remember(b, 'ok', 'locked', 'Fine importance.');
      expect(created?.deduped).toBe(false);
    }, 180_000);

    it('concurrent writes and forgets of one scope keep its text statistics exact', async () => {
      const store = stores[0] as PostgresStore;
      const created = await Promise.all(
        Array.from({ length: 16 }, (_, i) =>
          remember(stores[i % 2] as PostgresStore, `c-${i}`, 'busy', `busy note ${i} kettle`),
        ),
      );
      const ids = created.map((c) => c[0]?.id as string);
      await Promise.all(
        ids
          .filter((_, i) => i % 3 === 0)
          .map((id, i) =>
            (stores[i % 2] as PostgresStore).write(() =>
              forgetMemoryProgram(
                POSTGRES_WRITER,
                { ids: createSequentialIds(`f-${i}`), vectorAvailable: false, inlineEntityLinking: false },
                { agentId: 'busy', id, audit: {} },
                NOW,
              ),
            ),
          ),
      );
      const live = await store.read(() =>
        all<{ seq: number; content: string }>(
          portable('SELECT seq, content FROM memories WHERE agent_id = ? AND is_deleted = 0', 'busy'),
        ),
      );
      expect(live).toHaveLength(16 - Math.ceil(16 / 3));
      const scope = await store.read(() =>
        get<{ scope: number; docs: number; tokens: number }>(
          portable("SELECT scope, docs, tokens FROM text_scopes WHERE corpus = 'memory' AND agent_id = ?", 'busy'),
        ),
      );
      expect(scope?.docs).toBe(live.length);
      expect(scope?.tokens).toBe(live.reduce((sum, m) => sum + textTerms(m.content).length, 0));
      const postings = await store.read(() =>
        get<{ n: number }>(portable('SELECT count(*) AS n FROM text_postings WHERE scope = ?', scope?.scope)),
      );
      expect(postings?.n).toBe(live.reduce((sum, m) => sum + textTerms(m.content).counts.size, 0));
    }, 120_000);
  },
);
