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
import type { MigrationResult } from '../migrations/runner.js';
import type { Program } from '../program/program.js';
import { runPostgresProgram } from '../program/run-postgres.js';
import { TransactionGuard } from '../transaction-guard.js';
import { execute, type PostgresClient, type PostgresTarget, poolFor } from './connection.js';
import { isSerializationFailure, wrapPostgresError } from './errors.js';
import { runPostgresMigrations } from './migrations.js';

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
   * transaction touched the same rows); the program runs again from the start each time.
   * @default 8
   */
  readonly maxWriteAttempts?: number;
}

/** How a write transaction runs. */
export interface WriteOptions {
  /**
   * `read committed` is for programs whose correctness rests on row locks alone, such as a
   * queue lease taking the oldest unlocked row with `FOR UPDATE SKIP LOCKED`, or a completion that
   * locks its job's row: under SERIALIZABLE, concurrent ones conflict over the index pages they
   * all read, though each touches its own row.
   * @default 'serializable'
   */
  readonly isolation?: 'serializable' | 'read committed';
}

/** A program to run, made fresh for each attempt (a generator runs once). */
export type ProgramFactory<R> = () => Program<R>;

/** A migrated PostgreSQL database and the seams every package writes through. */
export interface PostgresStore {
  readonly dialect: 'postgres';
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** The result of the migration run at open (migrations with a PostgreSQL form only). */
  readonly migrations: readonly MigrationResult[];
  /** Provider wrappers that refuse calls from inside a write transaction. */
  readonly guard: TransactionGuard;
  /**
   * Runs a program in one SERIALIZABLE transaction: where SQLite relies on its single writer,
   * PostgreSQL aborts whichever of two conflicting transactions commits second, and the store runs
   * that program again (up to `maxWriteAttempts`). Errors other than {@link MemoryError} are wrapped
   * as `STORAGE_ERROR`; the transaction rolls back.
   */
  write<R>(program: ProgramFactory<R>, options?: WriteOptions): Promise<R>;
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
  const maxAttempts = options.maxWriteAttempts ?? 8;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new MemoryError('INVALID_INPUT', 'maxWriteAttempts must be a positive integer');
  const { pool, owned } = await poolFor(options.target);

  let migrations: MigrationResult[];
  try {
    migrations = await withClient(pool, (client) =>
      runPostgresMigrations(client, options.migrations ?? MIGRATIONS, clock),
    );
  } catch (error) {
    if (owned) await pool.end().catch(() => undefined);
    throw wrapPostgresError(error, 'MIGRATION_FAILED');
  }
  const failed = migrations.find((m) => m.status === 'failed' || m.status === 'checksum-mismatch');
  if (failed) {
    if (owned) await pool.end().catch(() => undefined);
    throw new MemoryError(
      'MIGRATION_FAILED',
      `migration ${failed.version} (${failed.name}) ${failed.status === 'failed' ? 'failed' : 'changed after it was applied (checksum mismatch)'}; see schema_migrations_audit`,
      {
        ...(failed.error === undefined ? {} : { cause: new Error(failed.error) }),
        details: { results: migrations.map((m) => `${m.version} ${m.name}: ${m.status}`) },
      },
    );
  }
  for (const m of migrations)
    if (m.status === 'applied')
      logger.info('migration applied', { version: m.version, name: m.name, durationMs: m.durationMs });

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

  const transaction = async <R>(begin: string, program: ProgramFactory<R>, writing: boolean): Promise<R> => {
    assertOpen();
    return withClient(pool, async (client, markBroken) => {
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
            // Back off a little, with jitter, so the conflicting transactions do not meet again.
            await new Promise((resolve) => setTimeout(resolve, random.float() * 2 ** Math.min(attempt, 6)));
            continue;
          }
          throw wrapPostgresError(error);
        }
      }
    });
  };

  return {
    dialect: 'postgres',
    clock,
    ids,
    logger,
    migrations,
    guard,
    get closed() {
      return closed;
    },
    write: (program, writeOptions) =>
      track(
        transaction(
          writeOptions?.isolation === 'read committed'
            ? 'BEGIN ISOLATION LEVEL READ COMMITTED'
            : 'BEGIN ISOLATION LEVEL SERIALIZABLE',
          program,
          true,
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
