// The backends the Dreaming contract runs on: SQLite, PostgreSQL in-process (PGlite), and the run's
// real PostgreSQL server when there is one. Each test opens a store with its own manual clock and
// sequential ids on an emptied database, and reads rows back with test-only SQL (`?` placeholders).
import { createManualClock, createSequentialIds, type ManualClock } from '@memory/core';
import type { PortableStore } from '@memory/store';
import { openPostgresStore, type PostgresStore, type PostgresTarget } from '@memory/store/postgres';
import { all, perDialect, raw, run } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import { closeSharedPglite, sharedPglite } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';

export const T0 = Date.UTC(2026, 0, 1);

/** SQLite `?` placeholders as `$1..$n`. */
export const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

/** What one test gets: the store, its clock, and test-only SQL on its database. */
export interface DreamingSetup {
  readonly store: PortableStore;
  readonly clock: ManualClock;
  /** Test-only SQL with `?` placeholders, run in a write transaction; returns the rows. */
  sql<R>(text: string, ...params: unknown[]): Promise<R[]>;
  /** Another store on the same database (another process's engine; on SQLite the same store). */
  another(): Promise<PortableStore>;
}

export interface DreamingBackend {
  readonly name: string;
  /** Why the backend is left out of this run, or undefined when it runs. */
  readonly skip: string | undefined;
  beforeAll(): Promise<void>;
  afterAll(): Promise<void>;
  setup(): Promise<DreamingSetup>;
  afterEach(): Promise<void>;
}

// Until the transcript and document tables have their PostgreSQL forms (other subjects of issue 18),
// a PostgreSQL database gets the columns Dreaming's evidence reads; IF NOT EXISTS makes this a no-op
// once the real tables are there.
const EVIDENCE_TABLES = [
  `CREATE TABLE IF NOT EXISTS session_transcripts (
    agent_id text NOT NULL, session_key text NOT NULL, content text NOT NULL DEFAULT '', harness text, project text,
    content_hash text, source_id text, source_record_id text, source_meta_json text,
    created_at bigint NOT NULL, updated_at bigint NOT NULL, completed_at bigint, PRIMARY KEY (agent_id, session_key))`,
  `CREATE TABLE IF NOT EXISTS documents (
    id text PRIMARY KEY, agent_id text NOT NULL, raw_content text, status text NOT NULL DEFAULT 'queued',
    created_at bigint NOT NULL DEFAULT 0, updated_at bigint NOT NULL DEFAULT 0, completed_at bigint)`,
  `CREATE TABLE IF NOT EXISTS document_content_parts (
    document_id text NOT NULL, part integer NOT NULL, text text NOT NULL, PRIMARY KEY (document_id, part))`,
];

function sqliteBackend(): DreamingBackend {
  const open: Array<{ close(): void }> = [];
  return {
    name: 'sqlite',
    skip: undefined,
    beforeAll: async () => undefined,
    afterAll: async () => undefined,
    async afterEach() {
      for (const s of open.splice(0)) s.close();
    },
    async setup() {
      const clock = createManualClock(T0);
      const store = await createTestStore({ clock, ids: createSequentialIds('d') });
      open.push(store);
      const sql = async <R>(text: string, ...params: unknown[]): Promise<R[]> => {
        const statement = store.database.prepare(text);
        if (statement.reader) return statement.all(...params) as R[];
        statement.run(...params);
        return [];
      };
      return { store, clock, sql, another: async () => store };
    },
  };
}

/** A PostgreSQL backend over one database shared by the file's tests (emptied before each). */
function postgresBackend(
  name: string,
  skip: string | undefined,
  target: () => Promise<{ target: PostgresTarget; close(): Promise<void> }>,
  // PGlite is one connection: a second store on it would interleave two transactions on it.
  concurrent: boolean,
): DreamingBackend {
  let shared: { target: PostgresTarget; close(): Promise<void> } | undefined;
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
    async setup() {
      if (!shared) throw new Error(`${name}: beforeAll did not run`);
      const clock = createManualClock(T0);
      const store = await openPostgresStore({ target: shared.target, clock, ids: createSequentialIds('d') });
      open.push(store);
      const sql = <R>(text: string, ...params: unknown[]): Promise<R[]> =>
        store.write(() => all<R>(perDialect(raw(text, ...params), raw(numbered(text), ...params))));
      await store.write(function* () {
        for (const statement of EVIDENCE_TABLES) yield* run(perDialect(raw(statement), raw(statement)));
        const tables = yield* all<{ name: string }>(
          perDialect(
            raw('SELECT 1'),
            raw(
              "SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema() AND tablename NOT LIKE 'schema_migrations%'",
            ),
          ),
        );
        const list = tables.map((t) => `"${t.name}"`).join(', ');
        yield* run(perDialect(raw('SELECT 1'), raw(`TRUNCATE ${list} RESTART IDENTITY CASCADE`)));
      });
      const another = async (): Promise<PortableStore> => {
        if (!concurrent) return store;
        if (!shared) throw new Error(`${name}: beforeAll did not run`);
        const other = await openPostgresStore({ target: shared.target, clock, ids: createSequentialIds('o') });
        open.push(other);
        return other;
      };
      return { store, clock, sql, another };
    },
  };
}

function pgliteBackend(): DreamingBackend {
  return postgresBackend(
    'pglite',
    undefined,
    async () => ({
      target: { pglite: await sharedPglite() },
      close: closeSharedPglite,
    }),
    false,
  );
}

// The run's private server (started by the vitest global setup), or why there is none; with
// MEMORY_REQUIRE_POSTGRES=1 (CI) a missing server fails the file instead of skipping it.
const server = await postgresTestServer();

function serverBackend(): DreamingBackend {
  return postgresBackend(
    'postgres server',
    server.available ? undefined : server.reason,
    async () => {
      const db = await postgresTestDatabase();
      return { target: { connectionString: db.connectionString, maxConnections: 4 }, close: () => db.drop() };
    },
    true,
  );
}

export const BACKENDS: readonly DreamingBackend[] = [sqliteBackend(), pgliteBackend(), serverBackend()];
