// The databases an engine-level contract test runs on: SQLite in memory, PostgreSQL in-process
// (PGlite, with pgvector) and the run's real PostgreSQL server (no pgvector; skipped with the reason
// when there is none locally, an error in CI where MEMORY_REQUIRE_POSTGRES=1). Each `open` gives a
// fresh, empty, migrated engine; `cleanup` (afterEach) closes what the test opened.
//
// @example
// const backends = await engineBackends();
// describe.each(backends)('on $name', (backend) => {
//   afterEach(() => backend.cleanup());
//   afterAll(() => backend.dispose());
//   it.skipIf(backend.skip)('remembers', async () => { const engine = await backend.open(); ... });
// });
import { createSeededRandom, type RandomSource } from '@memory/core';
import type { Dialect } from '@memory/store';
import type { PostgresTarget } from '@memory/store/postgres';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from '../../src/index.js';

export type EngineOptions = Omit<MemoryEngineOptions, 'database'>;

export interface EngineBackend {
  readonly name: 'sqlite' | 'pglite' | 'postgres';
  readonly dialect: Dialect;
  /** Why this backend is left out of the run; undefined when it runs. */
  readonly skip: string | undefined;
  /** Whether vectors have an index here (sqlite-vec, pgvector on PGlite; none on Debian's server). */
  readonly vectorIndex: boolean;
  /** A fresh, empty engine (on PGlite, the engines of one test share its one database). */
  open(options?: EngineOptions): Promise<MemoryEngine>;
  /**
   * `count` engines on ONE fresh database (separate pools: as separate processes would be). On
   * SQLite they share one file; on PGlite, its single connection.
   */
  openShared(count: number, options?: EngineOptions): Promise<MemoryEngine[]>;
  /** Closes every engine opened since the last cleanup and drops their databases. */
  cleanup(): Promise<void>;
  /**
   * The PostgreSQL database the last engine opened on, for a test that sets up rows through a store
   * of its own (parts whose public API has no PostgreSQL form yet); undefined on SQLite.
   */
  target(): PostgresTarget | undefined;
  /** Releases what the file holds (PGlite). */
  dispose(): Promise<void>;
}

/**
 * Each engine a backend opens draws from its own seeded source unless the test passes one: API token
 * secrets and the workers' poll jitter are then the same on every run (a token test once failed one
 * run in 16 on what the random secret happened to end with).
 */
let engineSeeds = 0;
const nextRandom = (): RandomSource => createSeededRandom(++engineSeeds);

function sqliteBackend(): EngineBackend {
  const opened: MemoryEngine[] = [];
  const tempFiles: Array<() => Promise<void>> = [];
  return {
    name: 'sqlite',
    dialect: 'sqlite',
    skip: undefined,
    vectorIndex: true,
    async open(options = {}) {
      const engine = await createMemoryEngine({ random: nextRandom(), ...options, database: { path: ':memory:' } });
      opened.push(engine);
      return engine;
    },
    async openShared(count, options = {}) {
      const { mkdtemp, rm } = await import('node:fs/promises');
      const { tmpdir } = await import('node:os');
      const { join } = await import('node:path');
      const dir = await mkdtemp(join(tmpdir(), 'engine-backend-'));
      tempFiles.push(() => rm(dir, { recursive: true, force: true }));
      const engines: MemoryEngine[] = [];
      for (let i = 0; i < count; i++)
        engines.push(
          await createMemoryEngine({ random: nextRandom(), ...options, database: { path: join(dir, 'memory.db') } }),
        );
      opened.push(...engines);
      return engines;
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((e) => e.close()));
      for (const remove of tempFiles.splice(0)) await remove();
    },
    dispose: async () => undefined,
    target: () => undefined,
  };
}

/** Empties PGlite's database (tables, sequences, functions, the vector extension) for the next engine. */
async function resetPglite(db: Awaited<ReturnType<typeof sharedPglite>>): Promise<void> {
  await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public; CREATE EXTENSION IF NOT EXISTS vector');
}

function pgliteBackend(): EngineBackend {
  const opened: MemoryEngine[] = [];
  let last: PostgresTarget | undefined;
  const open = async (options: EngineOptions) => {
    const pglite = await sharedPglite();
    last = { pglite };
    if (opened.length === 0) await resetPglite(pglite);
    const engine = await createMemoryEngine({ random: nextRandom(), ...options, database: { postgres: { pglite } } });
    opened.push(engine);
    return engine;
  };
  return {
    name: 'pglite',
    dialect: 'postgres',
    skip: undefined,
    vectorIndex: true,
    open: (options = {}) => open(options),
    async openShared(count, options = {}) {
      const engines: MemoryEngine[] = [];
      for (let i = 0; i < count; i++) engines.push(await open(options));
      return engines;
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((e) => e.close()));
    },
    dispose: () => closeSharedPglite(),
    target: () => last,
  };
}

function serverBackend(skip: string | undefined): EngineBackend {
  const opened: MemoryEngine[] = [];
  const databases: Array<{ drop(): Promise<void> }> = [];
  let last: PostgresTarget | undefined;
  const openOn = async (connectionString: string, options: EngineOptions) => {
    last = { connectionString, maxConnections: 2 };
    const engine = await createMemoryEngine({
      random: nextRandom(),
      ...options,
      database: { postgres: { connectionString, maxConnections: 4 } },
    });
    opened.push(engine);
    return engine;
  };
  return {
    name: 'postgres',
    dialect: 'postgres',
    skip,
    vectorIndex: false,
    async open(options = {}) {
      const database = await postgresTestDatabase();
      databases.push(database);
      return openOn(database.connectionString, options);
    },
    async openShared(count, options = {}) {
      const database = await postgresTestDatabase();
      databases.push(database);
      const engines: MemoryEngine[] = [];
      for (let i = 0; i < count; i++) engines.push(await openOn(database.connectionString, options));
      return engines;
    },
    async cleanup() {
      await Promise.all(opened.splice(0).map((e) => e.close()));
      for (const database of databases.splice(0)) await database.drop();
    },
    dispose: async () => undefined,
    target: () => last,
  };
}

/** SQLite, PGlite and the real server (skipped with the reason when there is none). */
export async function engineBackends(): Promise<EngineBackend[]> {
  const server = await postgresTestServer();
  return [
    sqliteBackend(),
    pgliteBackend(),
    serverBackend(server.available ? undefined : `no PostgreSQL test server: ${server.reason}`),
  ];
}
