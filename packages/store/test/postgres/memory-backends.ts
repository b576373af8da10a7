import { PGlite } from '@electric-sql/pglite';
import { createSequentialIds } from '@memory/core';
import type { MemoryWriteDeps, WriterTarget } from '../../src/memory-writer/context.js';
import { runWriterProgram } from '../../src/memory-writer/run-writer.js';
import { openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import type { Dialect, Program } from '../../src/program/program.js';
import { runSqliteProgram } from '../../src/program/run-sqlite.js';
import { createTestStore } from '../../src/testing.js';
import { postgresTestDatabase } from '../support/postgres.js';

// The contract's writes run one at a time: they hold no scope lock keys (concurrent-writers.test.ts
// takes them where writers overlap).
const ANY_SCOPE = { agentIds: [] };

/** One store the memory contract runs against: programs in, results out, on either dialect. */
export interface MemoryBackend {
  readonly name: string;
  readonly dialect: Dialect;
  /** Whether SQLite's vec0 index is there (the writer mirrors vectors into it then). */
  readonly vectorAvailable: boolean;
  write<R>(program: (target: WriterTarget) => Program<R>): Promise<R>;
  read<R>(program: () => Program<R>): Promise<R>;
  close(): Promise<void>;
}

/** A fresh SQLite file store; writer programs run as the engine runs them (`runWriterProgram`). */
export async function openSqliteBackend(): Promise<MemoryBackend> {
  const store = await createTestStore();
  return {
    name: 'sqlite',
    dialect: 'sqlite',
    vectorAvailable: store.vector.available,
    write: (program) => runWriterProgram(store, ANY_SCOPE, program),
    read: async (program) => store.read((sql) => runSqliteProgram(sql, program())),
    close: async () => store.close(),
  };
}

/** A fresh in-process PostgreSQL (PGlite) database with every PostgreSQL migration applied. */
export async function openPgliteBackend(): Promise<MemoryBackend> {
  const pglite = await PGlite.create();
  const store = await openPostgresStore({ target: { pglite } });
  return {
    name: 'postgres (PGlite)',
    dialect: 'postgres',
    vectorAvailable: false,
    write: (program) => runWriterProgram(store, ANY_SCOPE, program),
    read: (program) => store.read(program),
    close: async () => {
      await store.close();
      await pglite.close();
    },
  };
}

/**
 * A database of its own on the run's PostgreSQL server (the vitest global setup's), migrated. Call it
 * only where `postgresTestServer()` said a server is available.
 */
export async function openServerBackend(): Promise<MemoryBackend> {
  const database = await postgresTestDatabase();
  const store = await openPostgresStore({ target: { connectionString: database.connectionString } });
  return {
    name: 'postgres (server)',
    dialect: 'postgres',
    vectorAvailable: false,
    write: (program) => runWriterProgram(store, ANY_SCOPE, program),
    read: (program) => store.read(program),
    close: async () => {
      await store.close();
      await database.drop();
    },
  };
}

/** Writer dependencies for a backend, with sequential ids (the same ids on every backend). */
export function writerDeps(backend: MemoryBackend, prefix = 'm', linking = true): MemoryWriteDeps {
  return { ids: createSequentialIds(prefix), vectorAvailable: backend.vectorAvailable, inlineEntityLinking: linking };
}

/** A fresh database on the run's PostgreSQL server, opened by `count` stores (each with its own pool). */
export async function openServerStores(count: number): Promise<{ stores: PostgresStore[]; close(): Promise<void> }> {
  const database = await postgresTestDatabase();
  const stores: PostgresStore[] = [];
  for (let i = 0; i < count; i++)
    stores.push(
      await openPostgresStore({ target: { connectionString: database.connectionString, maxConnections: 4 } }),
    );
  return {
    stores,
    close: async () => {
      await Promise.all(stores.map((s) => s.close()));
      await database.drop();
    },
  };
}
