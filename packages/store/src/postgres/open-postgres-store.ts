import {
  type Clock,
  createIdGenerator,
  cryptoRandom,
  type IdGenerator,
  type Logger,
  MemoryError,
  type RandomSource,
  silentLogger,
  systemClock,
} from '@memory/core';
import { MIGRATIONS } from '../migrations/index.js';
import type { Migration } from '../migrations/migration.js';
import { logApplied, type MigrationResult, migrationFailure } from '../migrations/runner.js';
import type { Database, PortableStore, WriteOptions } from '../program/database.js';
import type { Program } from '../program/program.js';
import { runPostgresProgram } from '../program/run-postgres.js';
import { TransactionGuard } from '../transaction-guard.js';
import { execute, type PostgresClient, type PostgresTarget, poolFor } from './connection.js';
import { isSerializationFailure, wrapPostgresError } from './errors.js';
import { runPostgresMigrations } from './migrations.js';
import { createHnswIndex, type PostgresVectorSupport, setUpPostgresVectors } from './vector-support.js';

export interface OpenPostgresStoreOptions {
  readonly target: PostgresTarget;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default time-ordered random ids */
  readonly ids?: IdGenerator;
  /** @default silentLogger */
  readonly logger?: Logger;
  /** Jitter for retry backoff. @default cryptoRandom */
  readonly random?: RandomSource;
  /** Migrations to apply (their PostgreSQL forms); for tests of the runner. @default MIGRATIONS */
  readonly migrations?: readonly Migration[];
  /**
   * Attempts for a write that PostgreSQL aborts as a serialization failure or deadlock (another
   * transaction touched the same rows); the program runs again from the start each time, after a
   * random pause of up to 8, 16, 32, ... ms (capped at 1 s), so a hot row under a slow server still
   * lets every writer through. @default 10
   */
  readonly maxWriteAttempts?: number;
  /**
   * Use pgvector when the server offers it (`auto`: created with `CREATE EXTENSION IF NOT EXISTS
   * vector`, which needs the right privileges), or never (`off`: vector search compares the agent's
   * newest vectors exactly in JavaScript). @default 'auto'
   */
  readonly vectorExtension?: 'auto' | 'off';
}

/** How a write runs. */
/** How a write runs on PostgreSQL (see {@link WriteOptions}). */
export type PostgresWriteOptions = WriteOptions;

/** A program to run, made fresh for each attempt (a generator runs once). */
export type ProgramFactory<R> = () => Program<R>;

/** A migrated PostgreSQL database and the seams every package writes through. */
export interface PostgresStore extends Database, PortableStore {
  readonly dialect: 'postgres';
  /** The store itself: it already runs programs. */
  readonly db: Database;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The result of the migration run at open (migrations with a PostgreSQL form only). */
  readonly migrations: readonly MigrationResult[];
  /** Provider wrappers that refuse calls from inside a write transaction. */
  readonly guard: TransactionGuard;
  /** Whether pgvector is in use, and why not when it is not. */
  readonly vector: PostgresVectorSupport;
  /**
   * Builds the HNSW index for vectors of one dimension if it is missing (`CREATE INDEX
   * CONCURRENTLY`: writes go on meanwhile). Does nothing without pgvector.
   */
  createVectorIndex(dimensions: number): Promise<void>;
  /**
   * Runs a program in one SERIALIZABLE transaction: where SQLite relies on its single writer,
   * PostgreSQL aborts whichever of two conflicting transactions commits second, and the store runs
   * that program again (up to `maxWriteAttempts`). Errors other than {@link MemoryError} are wrapped
   * as `STORAGE_ERROR`; the transaction rolls back.
   */
  write<R>(program: ProgramFactory<R>, options?: PostgresWriteOptions): Promise<R>;
  /** Runs a read-only program on one snapshot (REPEATABLE READ, READ ONLY). */
  read<R>(program: ProgramFactory<R>): Promise<R>;
  /** True once `close()` ran. */
  readonly closed: boolean;
  /** Ends the pool if the store created it; waits for transactions in flight. Idempotent. */
  close(): Promise<void>;
}

/**
 * Opens (and migrates) a store on PostgreSQL.
 *
 * @example
 * ```ts
 * const store = await openPostgresStore({ target: { connectionString: 'postgres://localhost/memory' } });
 * const n = await store.read(() => countRows());
 * await store.close();
 * ```
 */
export async function openPostgresStore(options: OpenPostgresStoreOptions): Promise<PostgresStore> {
  const clock = options.clock ?? systemClock;
  const random = options.random ?? cryptoRandom;
  const ids = options.ids ?? createIdGenerator({ clock, random });
  const logger = options.logger ?? silentLogger;
  const maxAttempts = options.maxWriteAttempts ?? 10;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new MemoryError('INVALID_INPUT', 'maxWriteAttempts must be a positive integer');
  const { pool, owned } = await poolFor(options.target, logger);

  let migrations: MigrationResult[];
  try {
    migrations = await withClient(pool, (client) =>
      runPostgresMigrations(client, options.migrations ?? MIGRATIONS, clock),
    );
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    throw wrapPostgresError(error, 'MIGRATION_FAILED');
  }
  const failure = migrationFailure(migrations);
  if (failure) {
    if (owned) await pool.end().catch(() => undefined);
    throw failure;
  }
  logApplied(migrations, logger);
  let vector: PostgresVectorSupport;
  try {
    vector = await withClient(pool, (client) =>
      setUpPostgresVectors(client, options.vectorExtension ?? 'auto', logger),
    );
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    throw wrapPostgresError(error);
  }
  if (!vector.available)
    logger.warn('pgvector is not in use; vector search will compare the newest vectors exactly', {
      reason: vector.reason,
    });

  const guard = new TransactionGuard();
  let closed = false;
  const inFlight = new Set<Promise<unknown>>();
  const assertOpen = (): void => {
    if (closed) throw new MemoryError('ENGINE_CLOSED', 'the store is closed');
  };
  const track = <R>(work: Promise<R>): Promise<R> => {
    inFlight.add(work);
    const settle = () => inFlight.delete(work);
    work.then(settle, settle);
    return work;
  };

  const transaction = async <R>(
    begin: string,
    program: ProgramFactory<R>,
    writing: boolean,
    lockKeys: readonly string[] = [],
  ): Promise<R> => {
    assertOpen();
    const keys = [...new Set(lockKeys)].sort();
    return withClient(pool, async (client, markBroken) => {
      const held: string[] = [];
      try {
        for (const key of keys) {
          await execute(client, { sql: 'SELECT pg_advisory_lock(hashtextextended($1, 0))', parameters: [key] });
          held.push(key);
        }
        return await attempts(client, markBroken);
      } catch (error) {
        throw wrapPostgresError(error);
      } finally {
        for (const key of held.reverse())
          await execute(client, { sql: 'SELECT pg_advisory_unlock(hashtextextended($1, 0))', parameters: [key] }).catch(
            // A connection that cannot unlock is closed instead: the server drops its locks with it.
            markBroken,
          );
      }
    });

    async function attempts(client: PostgresClient, markBroken: () => void): Promise<R> {
      for (let attempt = 1; ; attempt++) {
        try {
          await execute(client, { sql: begin, parameters: [] });
          const result = await runPostgresProgram(client, program(), writing ? guard : undefined);
          await execute(client, { sql: 'COMMIT', parameters: [] });
          return result;
        } catch (error) {
          // A connection that cannot even roll back is not handed to the next caller.
          await execute(client, { sql: 'ROLLBACK', parameters: [] }).catch(markBroken);
          if (isSerializationFailure(error) && attempt < maxAttempts) {
            // Back off with full jitter, doubling each attempt, so the conflicting transactions do not
            // meet again. The pause must outgrow a transaction's own duration on a loaded server:
            // pauses capped at 64 ms let 24 writers of one row exhaust 8 attempts at load average 13.
            await new Promise((resolve) => setTimeout(resolve, random.float() * Math.min(1000, 2 ** (attempt + 2))));
            continue;
          }
          throw wrapPostgresError(error);
        }
      }
    }
  };

  const store: PostgresStore = {
    dialect: 'postgres',
    get db() {
      return store;
    },
    clock,
    ids,
    logger,
    migrations,
    guard,
    vector,
    async createVectorIndex(dimensions) {
      assertOpen();
      if (!vector.available) return;
      await track(
        withClient(pool, (client) => createHnswIndex(client, dimensions)).catch((error: unknown) => {
          throw error instanceof RangeError
            ? new MemoryError('INVALID_INPUT', error.message)
            : wrapPostgresError(error);
        }),
      );
    },
    get closed() {
      return closed;
    },
    write: (program, options) =>
      track(
        transaction(
          options?.isolation === 'read committed'
            ? 'BEGIN ISOLATION LEVEL READ COMMITTED'
            : 'BEGIN ISOLATION LEVEL SERIALIZABLE',
          program,
          true,
          options?.lockKeys,
        ),
      ),
    read: (program) => track(transaction('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', program, false)),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([...inFlight]);
      if (owned) await pool.end();
    },
  };
  return store;
}

async function withClient<R>(
  pool: { connect(): Promise<PostgresClient> },
  fn: (client: PostgresClient, markBroken: () => void) => Promise<R>,
): Promise<R> {
  let client: PostgresClient;
  try {
    client = await pool.connect();
  } catch (error) {
    throw wrapPostgresError(error);
  }
  let broken = false;
  try {
    return await fn(client, () => {
      broken = true;
    });
  } finally {
    client.release(broken);
  }
}
