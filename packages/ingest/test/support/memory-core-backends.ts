// The backends the memory core's contract runs on: SQLite, PostgreSQL in-process (PGlite) and the
// run's real PostgreSQL server (skipped with its reason when there is none; CI requires it). A test
// gets a writer of its own over the file's database: its own clock, ids and agents, so tests share
// one database per backend without seeing each other's rows (everything the core reads is scoped).
import {
  createManualClock,
  createSequentialIds,
  type EmbeddingProvider,
  type ManualClock,
  type MemoryConfig,
  resolveConfig,
} from '@memory/core';
import type { PortableStore, Store } from '@memory/store';
import { openPostgresStore, type PostgresStore } from '@memory/store/postgres';
import { postgresOnly, raw, run } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { ConflictKeyIndex } from '../../src/conflict-keys.js';
import { createInputSchemas } from '../../src/inputs.js';
import type { MemoryWriter } from '../../src/writer.js';

export const T0 = Date.UTC(2026, 0, 1);

export interface CoreSetup {
  readonly store: PortableStore;
  readonly clock: ManualClock;
  readonly writer: MemoryWriter<PortableStore>;
  /** A second writer over the same database with its own store (another engine), where one can exist. */
  another?(): Promise<MemoryWriter<PortableStore>>;
}

export interface CoreBackend {
  readonly name: string;
  /** Why the backend is left out of this run, or undefined when it runs. */
  readonly skip: string | undefined;
  beforeAll(): Promise<void>;
  afterAll(): Promise<void>;
  /** A writer for one test; `prefix` keeps its ids apart from other tests' on a shared database. */
  setup(prefix: string, options?: WriterOptions): Promise<CoreSetup>;
  afterEach(): Promise<void>;
}

export interface WriterOptions {
  readonly embedder?: EmbeddingProvider | undefined;
  readonly config?: Parameters<typeof resolveConfig>[0];
  readonly onContentLive?: MemoryWriter['onContentLive'];
  readonly onContentLiveProgram?: MemoryWriter['onContentLiveProgram'];
}

/** A writer over `store` as the engine builds one (key index, failure memo, guarded embedder). */
export function writerOver<S extends PortableStore>(store: S, options: WriterOptions = {}): MemoryWriter<S> {
  const config: MemoryConfig = resolveConfig(options.config ?? {});
  return {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder: options.embedder ? store.guard.embedder(options.embedder) : undefined,
    embedFailures: { last: undefined },
    conflictKeys: new ConflictKeyIndex(),
    onContentLive: options.onContentLive,
    onContentLiveProgram: options.onContentLiveProgram,
  };
}

function sqliteBackend(): CoreBackend {
  const open: Store[] = [];
  return {
    name: 'sqlite',
    skip: undefined,
    beforeAll: async () => undefined,
    afterAll: async () => undefined,
    async afterEach() {
      for (const store of open.splice(0)) store.close();
    },
    async setup(prefix, options) {
      const clock = createManualClock(T0);
      const store = await createTestStore({ clock, ids: createSequentialIds(prefix), vectorExtension: 'off' });
      open.push(store);
      return { store, clock, writer: writerOver(store, options) };
    },
  };
}

// Tables of the memory lifecycle (migrations 10 and 11) whose PostgreSQL form another branch adds
// (s7-lifecycle: `postgres/lifecycle.ts`, `postgres/embedders.ts`). Until it is merged the contract
// creates them here; afterwards these statements find them and do nothing.
const LIFECYCLE_STAND_INS = [
  `CREATE TABLE IF NOT EXISTS lifecycle_counts (
    agent_id text NOT NULL, kind text NOT NULL, day bigint NOT NULL, n bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_id, kind, day))`,
  `CREATE TABLE IF NOT EXISTS embedding_failures (
    memory_id text NOT NULL, model text NOT NULL, content_hash text NOT NULL, attempts integer NOT NULL,
    error text NOT NULL, updated_at bigint NOT NULL, PRIMARY KEY (memory_id, model))`,
];

type Target = Parameters<typeof openPostgresStore>[0]['target'];

function postgresBackend(
  name: string,
  skip: string | undefined,
  database: () => Promise<{ target: Target; close(): Promise<void>; shareable: boolean }>,
): CoreBackend {
  let shared: { target: Target; close(): Promise<void>; shareable: boolean } | undefined;
  const open: PostgresStore[] = [];
  const openStore = async (clock: ManualClock, prefix: string) => {
    if (!shared) throw new Error(`${name}: beforeAll did not run`);
    const store = await openPostgresStore({ target: shared.target, clock, ids: createSequentialIds(prefix) });
    open.push(store);
    return store;
  };
  return {
    name,
    skip,
    async beforeAll() {
      shared = await database();
      const store = await openStore(createManualClock(T0), 'setup-');
      for (const statement of LIFECYCLE_STAND_INS) await store.write(() => run(postgresOnly(raw(statement))));
    },
    async afterAll() {
      for (const store of open.splice(0)) await store.close();
      await shared?.close();
    },
    async afterEach() {
      for (const store of open.splice(0)) await store.close();
    },
    async setup(prefix, options) {
      const clock = createManualClock(T0);
      const store = await openStore(clock, prefix);
      const setup: CoreSetup = { store, clock, writer: writerOver(store, options) };
      if (!shared?.shareable) return setup;
      return {
        ...setup,
        // Another engine: its own store (pool), the same clock; ids apart from the first one's.
        another: async () => writerOver(await openStore(clock, `${prefix}b-`), options),
      };
    },
  };
}

// The run's private server (started by the vitest global setup), or why there is none.
const server = await postgresTestServer();

export const BACKENDS: readonly CoreBackend[] = [
  sqliteBackend(),
  postgresBackend('pglite', undefined, async () => ({
    target: { pglite: await sharedPglite() },
    close: closeSharedPglite,
    // One in-process connection: a second store would queue behind the first's transactions.
    shareable: false,
  })),
  postgresBackend('postgres server', server.available ? undefined : server.reason, async () => {
    const db = await postgresTestDatabase();
    return { target: { connectionString: db.connectionString, maxConnections: 4 }, close: db.drop, shareable: true };
  }),
];
