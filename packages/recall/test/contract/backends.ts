// The backends recall's contract suite runs on: SQLite (sqlite-vec when it loads), PostgreSQL
// in-process (PGlite, with pgvector) and the run's real PostgreSQL server (Debian's: no pgvector,
// so vector search is the exact scan of the newest vectors). One store per backend per file; each
// test writes its own agents.
import { createManualClock, type IdGenerator, type ManualClock } from '@memory/core';
import {
  type CreatedMemory,
  createMemories,
  createMemoriesProgram,
  insertHintsProgram,
  type NewMemory,
  openStore,
  POSTGRES_WRITER,
  type PortableStore,
  type Program,
} from '@memory/store';
import { openPostgresStore, type PostgresStore } from '@memory/store/postgres';
import { portable, run } from '@memory/store/sql';
import { createPgliteWithVector } from '../../../store/test/support/pglite.js';
import { postgresTestDatabase, postgresTestServer } from '../../../store/test/support/postgres.js';

export const T0 = Date.UTC(2026, 5, 1);

/** Ids `<prefix>1`, `<prefix>2`, ...: the same on every backend, short in assertions. */
function idsFrom(prefix: string): IdGenerator {
  let n = 0;
  return { next: () => `${prefix}${++n}` };
}

/** One opened backend. */
export interface OpenBackend {
  readonly name: string;
  readonly store: PortableStore;
  readonly clock: ManualClock;
  /** Creates memories as the engine's writer does (ids `<prefix>1`, `<prefix>2`, ... on every backend). */
  remember(prefix: string, memories: readonly NewMemory[], now?: number): Promise<CreatedMemory[]>;
  /** Stores prospective hints for a memory. */
  hints(agentId: string, memoryId: string, hints: readonly string[]): Promise<void>;
  /** Test-only statements (`?` placeholders), in one write. */
  exec(statements: ReadonlyArray<readonly [string, ...unknown[]]>): Promise<void>;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  /** Why the backend is left out of this run, or '' when it runs. */
  readonly skip: string;
  open(): Promise<OpenBackend>;
}

function* execProgram(statements: ReadonlyArray<readonly [string, ...unknown[]]>): Program<void> {
  for (const [text, ...params] of statements) yield* run(portable(text, ...params));
}

async function sqliteBackend(): Promise<OpenBackend> {
  const clock = createManualClock(T0);
  const store = await openStore({ path: ':memory:', clock });
  return {
    name: 'sqlite',
    store,
    clock,
    remember: async (prefix, memories, now = clock.now()) =>
      store.write((sql) =>
        createMemories(
          sql,
          { ids: idsFrom(prefix), vectorAvailable: store.vector.available, inlineEntityLinking: false },
          memories,
          now,
        ),
      ),
    hints: async (agentId, memoryId, hints) => {
      await store.db.write(() => insertHintsProgram('sqlite', agentId, memoryId, hints, clock.now()));
    },
    exec: (statements) => store.db.write(() => execProgram(statements)),
    close: async () => store.close(),
  };
}

function postgresBackend(
  name: string,
  store: PostgresStore,
  clock: ManualClock,
  close: () => Promise<void>,
): OpenBackend {
  return {
    name,
    store,
    clock,
    remember: (prefix, memories, now = clock.now()) =>
      store.write(() =>
        createMemoriesProgram(
          POSTGRES_WRITER,
          { ids: idsFrom(prefix), vectorAvailable: false, inlineEntityLinking: false },
          memories,
          now,
        ),
      ),
    hints: async (agentId, memoryId, hints) => {
      await store.write(() => insertHintsProgram('postgres', agentId, memoryId, hints, clock.now()));
    },
    exec: (statements) => store.write(() => execProgram(statements)),
    close,
  };
}

async function pgliteBackend(): Promise<OpenBackend> {
  const clock = createManualClock(T0);
  const pglite = await createPgliteWithVector();
  const store = await openPostgresStore({ target: { pglite }, clock });
  return postgresBackend('postgres (PGlite, pgvector)', store, clock, async () => {
    await store.close();
    await pglite.close();
  });
}

async function serverBackend(): Promise<OpenBackend> {
  const clock = createManualClock(T0);
  const database = await postgresTestDatabase();
  const store = await openPostgresStore({ target: { connectionString: database.connectionString }, clock });
  return postgresBackend(
    `postgres (server${store.vector.available ? ', pgvector' : ', no pgvector'})`,
    store,
    clock,
    async () => {
      await store.close();
      await database.drop();
    },
  );
}

/** The three backends; the real server's is skipped (with the reason) when the run has none. */
export async function recallBackends(): Promise<Backend[]> {
  const server = await postgresTestServer();
  return [
    { name: 'sqlite', skip: '', open: sqliteBackend },
    { name: 'postgres (PGlite)', skip: '', open: pgliteBackend },
    { name: 'postgres (server)', skip: server.available ? '' : server.reason, open: serverBackend },
  ];
}
