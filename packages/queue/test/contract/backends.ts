// The backends the queue's contract suite runs on: SQLite (the synchronous queue, seen through
// promises), PostgreSQL in-process (PGlite), and a real PostgreSQL server when one is configured.
// Each test gets an empty queue with its own manual clock and sequential ids.
import { PGlite } from '@electric-sql/pglite';
import {
  createManualClock,
  createManualScheduler,
  createSequentialIds,
  defaultConfig,
  type ManualClock,
  type ManualScheduler,
  type MemoryConfig,
} from '@memory/core';
import { openStore } from '@memory/store';
import { openPostgresStore, type PostgresStore } from '@memory/store/postgres';
import { all, type Program, perDialect, raw } from '@memory/store/sql';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';
import { createPostgresQueue, createQueue, type PostgresQueue, type Queue } from '../../src/index.js';

export const T0 = Date.UTC(2026, 0, 1);

/** The queue as the contract sees it: the PostgreSQL queue's promise API, on every backend. */
export type ContractQueue = Omit<PostgresQueue, 'onDead' | 'enqueueProgram'> & {
  /** Registers a dead-letter hook written once as a program (SQLite runs it in the dead-lettering write). */
  onDead(jobType: string, hook: (job: { id: string; error: string | null }) => Program<void>): void;
};

export interface ContractSetup {
  readonly clock: ManualClock;
  readonly scheduler: ManualScheduler;
  /** The SQLite queue itself, or the PostgreSQL one: what a worker or reaper is given. */
  readonly raw: Queue | PostgresQueue;
  readonly queue: ContractQueue;
  /** Test-only SQL with `?` placeholders, run on the backend's database. */
  sql<R>(text: string, ...params: unknown[]): Promise<R[]>;
}

export interface Backend {
  readonly name: string;
  /** Why the backend is left out of this run, or undefined when it runs. */
  readonly skip: string | undefined;
  beforeAll(): Promise<void>;
  afterAll(): Promise<void>;
  setup(config?: Partial<MemoryConfig['queue']>): Promise<ContractSetup>;
  /** Closes what the last test opened. */
  afterEach(): Promise<void>;
}

/** SQLite `?` placeholders as `$1..$n`. */
export const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};

// The hooks' table: a record an owner writes in the dead-lettering transaction.
const DEAD_NOTES = 'CREATE TABLE IF NOT EXISTS queue_test_dead (job_id text PRIMARY KEY, error text)';

function sqliteBackend(): Backend {
  const open: Array<{ close(): void }> = [];
  return {
    name: 'sqlite',
    skip: undefined,
    beforeAll: async () => undefined,
    afterAll: async () => undefined,
    async afterEach() {
      for (const s of open.splice(0)) s.close();
    },
    async setup(config = {}) {
      const clock = createManualClock(T0);
      const scheduler = createManualScheduler(clock);
      const store = await openStore({ path: ':memory:', clock, ids: createSequentialIds('j') });
      open.push(store);
      store.database.exec(DEAD_NOTES);
      const queue = createQueue({ store, config: { ...defaultConfig.queue, ...config } });
      // The contract runs the SQLite queue through its portable (promise) API, which the engine uses.
      return {
        clock,
        scheduler,
        raw: queue,
        queue: queue.portable,
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

/** A PostgreSQL backend over one database shared by the file's tests (emptied before each). */
function postgresBackend(
  name: string,
  skip: string | undefined,
  target: () => Promise<{ target: Parameters<typeof openPostgresStore>[0]['target']; close(): Promise<void> }>,
): Backend {
  let shared: { target: Parameters<typeof openPostgresStore>[0]['target']; close(): Promise<void> } | undefined;
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
    async setup(config = {}) {
      if (!shared) throw new Error(`${name}: beforeAll did not run`);
      const clock = createManualClock(T0);
      const scheduler = createManualScheduler(clock);
      const store = await openPostgresStore({ target: shared.target, clock, ids: createSequentialIds('j') });
      open.push(store);
      const sql = <R>(text: string, ...params: unknown[]): Promise<R[]> =>
        store.write(() => all<R>(perDialect(raw(text, ...params), raw(numbered(text), ...params))));
      await sql(DEAD_NOTES);
      await sql('TRUNCATE memory_jobs, memory_jobs_archive, queue_test_dead');
      const queue = createPostgresQueue({ store, config: { ...defaultConfig.queue, ...config } });
      return { clock, scheduler, raw: queue, queue, sql };
    },
  };
}

function pgliteBackend(): Backend {
  return postgresBackend('pglite', undefined, async () => {
    const pglite = await PGlite.create();
    return { target: { pglite }, close: () => pglite.close() };
  });
}

// The run's private server (started by the vitest global setup), or why there is none; with
// MEMORY_REQUIRE_POSTGRES=1 (CI) a missing server fails the file instead of skipping it.
export const server = await postgresTestServer();

/** A database of the run's server for one test file, dropped after it. */
export async function serverDatabase(): Promise<{ connectionString: string; close(): Promise<void> }> {
  const db = await postgresTestDatabase();
  return { connectionString: db.connectionString, close: () => db.drop() };
}

function serverBackend(): Backend {
  return postgresBackend('postgres server', server.available ? undefined : server.reason, async () => {
    const db = await serverDatabase();
    return { target: { connectionString: db.connectionString, maxConnections: 4 }, close: db.close };
  });
}

export const BACKENDS: readonly Backend[] = [sqliteBackend(), pgliteBackend(), serverBackend()];
