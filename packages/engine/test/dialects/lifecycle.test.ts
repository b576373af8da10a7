import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler, createSequentialIds, type ManualClock } from '@memory/core';
import {
  createMemoriesProgram,
  forgetMemoryProgram,
  type NewMemory,
  openStore,
  type Program,
  prepareContent,
  runWriterProgram,
  type WriterTarget,
} from '@memory/store';
import { openPostgresStore } from '@memory/store/postgres';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from '../../src/index.js';
import { createBagOfWordsEmbedder } from '../helpers.js';

// The memory lifecycle through the engine on SQLite, PGlite (pgvector) and the real server: health,
// maintenance preview and purge, the embedding migration's fill job, erase, export, diagnostics.
// Memories are written by a second store on the same database (the engine's own writer is another
// subject's conversion), so each backend gives the engine and a seeding store on one database.

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;

interface Seeded {
  readonly engine: MemoryEngine;
  readonly clock: ManualClock;
  /** Runs a memory-writer program on the engine's database (a seed: before the engine writes, so no scope lock). */
  seed<R>(program: (target: WriterTarget) => Program<R>): Promise<R>;
}

interface Backend {
  readonly name: string;
  readonly dialect: 'sqlite' | 'postgres';
  readonly vectorIndex: boolean;
  readonly skip: string | undefined;
  open(options: Omit<MemoryEngineOptions, 'database'>, clock: ManualClock): Promise<Seeded>;
}

const cleanups: Array<() => Promise<void>> = [];

function sqliteBackend(): Backend {
  return {
    name: 'sqlite',
    dialect: 'sqlite',
    vectorIndex: true,
    skip: undefined,
    async open(options, clock) {
      const dir = await mkdtemp(join(tmpdir(), 'engine-lifecycle-'));
      const path = join(dir, 'memory.db');
      const engine = await createMemoryEngine({ ...options, database: { path } });
      const store = await openStore({ path, clock });
      cleanups.push(async () => {
        await engine.close();
        store.close();
        await rm(dir, { recursive: true, force: true });
      });
      return {
        engine,
        clock,
        seed: (program) => runWriterProgram(store, { agentIds: [] }, program),
      };
    },
  };
}

function postgresBackend(
  name: string,
  vectorIndex: boolean,
  skip: string | undefined,
  target: () => Promise<{
    engine: MemoryEngineOptions['database'];
    store: Parameters<typeof openPostgresStore>[0]['target'];
    drop(): Promise<void>;
  }>,
): Backend {
  return {
    name,
    dialect: 'postgres',
    vectorIndex,
    skip,
    async open(options, clock) {
      const where = await target();
      const engine = await createMemoryEngine({ ...options, database: where.engine });
      const store = await openPostgresStore({ target: where.store, clock });
      cleanups.push(async () => {
        await engine.close();
        await store.close();
        await where.drop();
      });
      return { engine, clock, seed: (program) => runWriterProgram(store, { agentIds: [] }, program) };
    },
  };
}

const server = await postgresTestServer();
const BACKENDS: Backend[] = [
  sqliteBackend(),
  postgresBackend('pglite', true, undefined, async () => {
    const pglite = await sharedPglite();
    await pglite.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE EXTENSION IF NOT EXISTS vector');
    return { engine: { postgres: { pglite } }, store: { pglite }, drop: async () => undefined };
  }),
  postgresBackend(
    'postgres',
    false,
    server.available ? undefined : `no PostgreSQL test server: ${server.reason}`,
    async () => {
      const database = await postgresTestDatabase();
      return {
        engine: { postgres: { connectionString: database.connectionString, maxConnections: 4 } },
        store: { connectionString: database.connectionString },
        drop: () => database.drop(),
      };
    },
  ),
];

const memory = (agentId: string, content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: { actor: { id: 'tester', type: 'operator' } },
  ...extra,
});

describe.each(BACKENDS)('the lifecycle on $name', (backend) => {
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  afterAll(() => closeSharedPglite());

  it.skipIf(backend.skip)(
    'reports health, purges, fills missing vectors, erases and exports a scope, and says where it runs',
    async () => {
      const clock = createManualClock(T0);
      const embedder = createBagOfWordsEmbedder(16);
      const { engine, seed } = await backend.open(
        { clock, scheduler: createManualScheduler(clock), ids: createSequentialIds('e'), embedder },
        clock,
      );
      const diagnostics = await engine.diagnostics();
      expect(diagnostics.dialect).toBe(backend.dialect === 'postgres' ? 'postgres' : undefined);
      expect(diagnostics.providers.vector.available).toBe(backend.vectorIndex);
      expect(diagnostics.maintenance.embedding).toMatchObject({ model: 'bow-test', vectorKey: 'bow-test' });

      const deps = {
        ids: createSequentialIds('m'),
        vectorAvailable: backend.dialect === 'sqlite',
        inlineEntityLinking: true,
      };
      const written = await seed(function* (target) {
        return yield* createMemoriesProgram(
          target,
          deps,
          [
            memory('gone', 'The ferry leaves at noon.'),
            memory('gone', 'The ferry ticket costs four euros.'),
            memory('kept', 'The bakery opens at seven.'),
            memory('kept', 'The bakery sells rye bread.'),
          ],
          T0 - 60 * DAY,
        );
      });
      const [, ticket, bakery, rye] = written.map((w) => w.id as string);
      await seed((target) =>
        forgetMemoryProgram(target, deps, { agentId: 'gone', id: ticket as string, audit: {} }, T0 - 40 * DAY),
      );

      const health = await engine.health({ agentId: 'gone' });
      expect(health).toMatchObject({
        agentId: 'gone',
        live: 1,
        forgotten: 1,
        vectors: { model: 'bow-test', current: 0, missing: 1, otherModel: 0 },
        pendingMaintenance: { purgeDue: 1 },
      });
      const preview = await engine.maintenance.preview();
      expect(preview.purge).toMatchObject({ forgotten: 1, expired: 0 });
      const [purge] = await engine.maintenance.run({ task: 'purge' });
      expect(purge).toMatchObject({ task: 'purge', done: true, purged: { memories: 1, historyScrubbed: 2 } });
      expect(await engine.health({ agentId: 'gone' })).toMatchObject({ forgotten: 0, purged: 1 });
      // Reaping (importance 0.5 is above the default threshold: nothing to reap) and archiving run to the end.
      const [reap, archive] = await engine.maintenance
        .run({ task: 'reap' })
        .then(async (r) => [...r, ...(await engine.maintenance.run({ task: 'archive' }))]);
      expect(reap).toMatchObject({ task: 'reap', done: true, reaped: 0 });
      expect(archive).toMatchObject({ task: 'archive', done: true, archived: { coldCopies: 0 } });
      expect((await engine.diagnostics()).maintenance.tasks.map((t) => t.task)).toEqual(
        expect.arrayContaining(['archive:run', 'purge:run', 'reap:run']),
      );

      // The embedding migration's fill job gives the memories without a vector one.
      const asked = await engine.maintenance.reembed({});
      expect(asked).toEqual({ remaining: 3, queued: true });
      await engine.runDue();
      expect((await engine.health({ agentId: 'kept' })).vectors).toMatchObject({ current: 2, missing: 0 });
      expect((await engine.diagnostics()).maintenance).toMatchObject({
        vectorsMissing: 0,
        embedding: { embedded: 3, total: 3, requested: [] },
      });
      const map = await engine.embeddingMap({ agentId: 'kept' });
      expect(map.points.map((p) => p.id).sort()).toEqual([bakery, rye].sort());

      const erased = await engine.erase({ agentId: 'gone' });
      expect(erased.counts).toMatchObject({ memories: 1, embeddings: 1, memory_history: 3, memory_tombstones: 1 });
      expect(await engine.health({ agentId: 'gone' })).toMatchObject({ live: 0, forgotten: 0, purged: 0 });

      const lines: string[] = [];
      for await (const line of engine.export({ agentId: 'kept' })) lines.push(line);
      const records = lines.map((l) => JSON.parse(l) as { kind: string; id?: string; content?: string });
      expect(records.filter((r) => r.kind === 'memory').map((r) => r.content)).toEqual([
        'The bakery opens at seven.',
        'The bakery sells rye bread.',
      ]);
      const gone: string[] = [];
      for await (const line of engine.export({ agentId: 'gone' })) gone.push(line);
      expect(gone.map((l) => (JSON.parse(l) as { kind: string }).kind)).toEqual(['header', 'footer']);
    },
    120_000,
  );
});
