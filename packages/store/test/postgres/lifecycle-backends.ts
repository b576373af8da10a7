import type { PGlite } from '@electric-sql/pglite';
import type { WriterTarget } from '../../src/memory-writer/context.js';
import { runWriterProgram } from '../../src/memory-writer/run-writer.js';
import { openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import type { Dialect, Program } from '../../src/program/program.js';
import { runSqliteProgram } from '../../src/program/run-sqlite.js';
import { createTestStore } from '../../src/testing.js';
import { createPgliteWithVector } from '../support/pglite.js';
import { postgresTestDatabase } from '../support/postgres.js';

// The contract's writes run one at a time: they hold no scope lock keys.
const ANY_SCOPE = { agentIds: [] };

/** A store the lifecycle contract runs against: programs in, results out, on either dialect. */
export interface LifecycleBackend {
  readonly dialect: Dialect;
  /** Whether SQLite's vec0 index is there (its rows follow the canonical vectors then). */
  readonly vectorAvailable: boolean;
  /** Whether PostgreSQL's pgvector mirror (`memory_vectors`) is there. */
  readonly mirror: boolean;
  /** PostgreSQL: builds the HNSW index of a dimension (a no-op without pgvector). */
  readonly createVectorIndex?: (dimensions: number) => Promise<void>;
  write<R>(program: (target: WriterTarget) => Program<R>): Promise<R>;
  read<R>(program: () => Program<R>): Promise<R>;
  close(): Promise<void>;
}

/** A fresh SQLite store (with sqlite-vec when it loads). */
export async function openSqliteLifecycleBackend(): Promise<LifecycleBackend> {
  const store = await createTestStore();
  return {
    dialect: 'sqlite',
    vectorAvailable: store.vector.available,
    mirror: false,
    write: (program) => runWriterProgram(store, ANY_SCOPE, program),
    read: async (program) => store.read((sql) => runSqliteProgram(sql, program())),
    close: async () => store.close(),
  };
}

function postgresBackend(store: PostgresStore, close: () => Promise<void>): LifecycleBackend {
  return {
    dialect: 'postgres',
    vectorAvailable: false,
    mirror: store.vector.available,
    createVectorIndex: (dimensions) => store.createVectorIndex(dimensions),
    write: (program) => runWriterProgram(store, ANY_SCOPE, program),
    read: (program) => store.read(program),
    close: async () => {
      await store.close();
      await close();
    },
  };
}

/** A fresh in-process PostgreSQL (PGlite) with pgvector: the store sets up the vector mirror. */
export async function openPgliteVectorBackend(): Promise<LifecycleBackend> {
  const pglite: PGlite = await createPgliteWithVector();
  const store = await openPostgresStore({ target: { pglite } });
  return postgresBackend(store, () => pglite.close());
}

/** A database of its own on the run's PostgreSQL server (without pgvector on Debian's packages). */
export async function openServerLifecycleBackend(): Promise<LifecycleBackend> {
  const database = await postgresTestDatabase();
  const store = await openPostgresStore({ target: { connectionString: database.connectionString } });
  return postgresBackend(store, () => database.drop());
}
