// The backends the transcript and import contract suites run on: SQLite (a file-less store, the
// synchronous queue), PostgreSQL in-process (PGlite) and the run's real PostgreSQL server when there
// is one. Each test gets empty tables, its own manual clock and sequential ids, so seqs, ids and
// scores come out the same on every backend.
import { PGlite } from '@electric-sql/pglite';
import {
  createManualClock,
  createSequentialIds,
  defaultConfig,
  type ManualClock,
  type MemoryConfig,
} from '@memory/core';
import { createPostgresQueue, createQueue, type PortableQueue } from '@memory/queue';
import { openStore, type PortableStore, type Store } from '@memory/store';
import { openPostgresStore, type PostgresStore } from '@memory/store/postgres';
import { all, perDialect, raw } from '@memory/store/sql';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';

export const T0 = Date.UTC(2026, 0, 1);

export interface ContractSetup {
  readonly clock: ManualClock;
  readonly config: MemoryConfig;
  readonly store: PortableStore;
  /** The same store as a SQLite `Store` (SQLite only). */
  readonly sqlite: Store | undefined;
  /** The same store as a `PostgresStore` (PostgreSQL only). */
  readonly postgres: PostgresStore | undefined;
  readonly queue: PortableQueue;
  /** Another store on the same database (PostgreSQL only; on PGlite it shares the one session). */
  another?(): Promise<PortableStore>;
  /** Test-only SQL with `?` placeholders, run on the backend's database. */
  sql<R>(text: string, ...params: unknown[]): Promise<R[]>;
}

export interface Backend {
  readonly name: string;
  /** Why the backend is left out of this run, or undefined when it runs. */
  readonly skip: string | undefined;
  beforeAll(): Promise<void>;
  afterAll(): Promise<void>;
  setup(config?: MemoryConfig): Promise<ContractSetup>;
  /** Closes what the last test opened. */
  afterEach(): Promise<void>;
}

const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

function sqliteBackend(): Backend {
  const open: Store[] = [];
  return {
    name: 'sqlite',
    skip: undefined,
    beforeAll: async () => undefined,
    afterAll: async () => undefined,
    async afterEach() {
      for (const s of open.splice(0)) s.close();
    },
    async setup(config = defaultConfig) {
      const clock = createManualClock(T0);
      const store = await openStore({ path: ':memory:', clock, ids: createSequentialIds('i') });
      open.push(store);
      return {
        clock,
        config,
        store,
        sqlite: store,
        postgres: undefined,
        queue: createQueue({ store, config: config.queue }).portable,
        sql: async <R>(text: string, ...params: unknown[]) => {
          const statement = store.database.prepare(text);
          if (statement.reader) return statement.all(...params) as R[];
          statement.run(...params);
          return [];
        },
      };
    },
  };
}

// Every table the suites write, emptied (identities restarted) before each test.
const TABLES = [
  'session_transcripts',
  'session_transcript_turns',
  'text_scopes',
  'text_postings',
  'import_jobs',
  'import_records',
  'import_tombstones',
  'memory_jobs',
  'memory_jobs_archive',
];

type Target = Parameters<typeof openPostgresStore>[0]['target'];

/** A PostgreSQL backend over one database shared by the file's tests (emptied before each). */
function postgresBackend(
  name: string,
  skip: string | undefined,
  target: () => Promise<{ target: Target; close(): Promise<void> }>,
): Backend {
  let shared: { target: Target; close(): Promise<void> } | undefined;
  const open: PostgresStore[] = [];
  return {
    name,
    skip,
    async beforeAll() {
      shared = await target();
    },
    async afterAll() {
      await shared?.close();
    },
    async afterEach() {
      for (const s of open.splice(0)) await s.close();
    },
    async setup(config = defaultConfig) {
      if (!shared) throw new Error(`${name}: beforeAll did not run`);
      const target = shared.target;
      const clock = createManualClock(T0);
      const store = await openPostgresStore({ target, clock, ids: createSequentialIds('i') });
      open.push(store);
      const sql = <R>(text: string, ...params: unknown[]): Promise<R[]> =>
        store.write(() => all<R>(perDialect(raw(text, ...params), raw(numbered(text), ...params))));
      await sql(`TRUNCATE ${TABLES.join(', ')} RESTART IDENTITY CASCADE`);
      return {
        clock,
        config,
        store,
        sqlite: undefined,
        postgres: store,
        queue: createPostgresQueue({ store, config: config.queue }),
        another: async () => {
          const other = await openPostgresStore({ target, clock, ids: createSequentialIds('o') });
          open.push(other);
          return other;
        },
        sql,
      };
    },
  };
}

// The run's private server (started by the vitest global setup), or why there is none; with
// MEMORY_REQUIRE_POSTGRES=1 (CI) a missing server fails the file instead of skipping it.
const server = await postgresTestServer();

export const BACKENDS: readonly Backend[] = [
  sqliteBackend(),
  postgresBackend('pglite', undefined, async () => {
    const pglite = await PGlite.create();
    return { target: { pglite }, close: () => pglite.close() };
  }),
  postgresBackend('postgres server', server.available ? undefined : server.reason, async () => {
    const db = await postgresTestDatabase();
    return { target: { connectionString: db.connectionString, maxConnections: 4 }, close: () => db.drop() };
  }),
];
