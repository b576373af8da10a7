import {
  type Clock,
  createIdGenerator,
  cryptoRandom,
  defaultConfig,
  type IdGenerator,
  isMemoryError,
  type Logger,
  type MemoryConfig,
  MemoryError,
  silentLogger,
  systemClock,
} from '@memory/core';
import Database from 'better-sqlite3';
import { type CheckpointMode, type CheckpointResult, startCheckpointer } from './internal/checkpointer.js';
import { nativeBuildError } from './internal/native-build.js';
import { type RawQuery, raw, SqlExecutor } from './internal/sql.js';
import type { SqliteDatabase } from './internal/sqlite.js';
import { registerTextFunctions } from './internal/text-functions.js';
import { MIGRATIONS } from './migrations/index.js';
import type { Migration } from './migrations/migration.js';
import { logApplied, type MigrationResult, migrationFailure, runMigrations } from './migrations/runner.js';
import { nativeBuildHint } from './native-build-hint.js';
import { type PortableStore, type Database as ProgramDatabase, sqliteDatabase } from './program/database.js';
import { TransactionGuard } from './transaction-guard.js';
import { loadVectorExtension, type VectorSupport } from './vector-extension.js';

export interface OpenStoreOptions {
  /** A file path or `":memory:"`. Exactly one of `path` and `database` is required. */
  readonly path?: string;
  /** An open better-sqlite3 database owned by the host; `close()` leaves it open. */
  readonly database?: SqliteDatabase;
  /** @default systemClock */
  readonly clock?: Clock;
  /** @default time-ordered random ids */
  readonly ids?: IdGenerator;
  /** @default silentLogger */
  readonly logger?: Logger;
  /** Connection settings. @default defaultConfig.store */
  readonly config?: MemoryConfig['store'];
  /** Migrations to apply; for tests of the runner. @default MIGRATIONS */
  readonly migrations?: readonly Migration[];
}

/** A synchronous write callback. Returning a promise is refused: nothing may be awaited in a transaction. */
export type WriteCallback<T> = (sql: SqlExecutor) => T extends PromiseLike<unknown> ? never : T;

/** The opened, migrated database and the seams every package writes through. */
export interface Store extends PortableStore {
  readonly dialect: 'sqlite';
  /** This store as a {@link Database}: programs run synchronously in one `write` / `read` call. */
  readonly db: ProgramDatabase;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** Whether sqlite-vec is loaded, and why not when it is not. */
  readonly vector: VectorSupport;
  /** The result of the migration run at open. */
  readonly migrations: readonly MigrationResult[];
  /** Provider wrappers that refuse calls from inside a write transaction. */
  readonly guard: TransactionGuard;
  /** True when the file is a real file (WAL applies); false for `:memory:`. */
  readonly isFile: boolean;
  /**
   * Runs `fn` in one immediate write transaction (nested calls become savepoints). The callback is
   * synchronous by design: provider calls happen before it, and their results are written inside it.
   * Errors other than {@link MemoryError} are wrapped as `STORAGE_ERROR`; the transaction rolls back.
   */
  write<T>(fn: WriteCallback<T>): T;
  /** Runs read-only work; reads see a consistent snapshot when wrapped in one call. */
  read<T>(fn: (sql: SqlExecutor) => T): T;
  /** The underlying handle, for the store's own modules and diagnostics. */
  readonly database: SqliteDatabase;
  /**
   * Runs a passive WAL checkpoint on the background worker and resolves with the WAL frame counts;
   * undefined for in-memory databases or when background checkpoints are off. Writes request one
   * every few commits on their own; this is for tests and for hosts that want to wait for one.
   * `truncate` empties the WAL file as well (the engine asks for it after a purge or an erase);
   * without the background worker it runs on this connection.
   */
  checkpoint(mode?: CheckpointMode): Promise<CheckpointResult | undefined>;
  /** True once `close()` ran. */
  readonly closed: boolean;
  /** Closes the database if the store opened it. Idempotent. */
  close(): void;
}

// With background checkpoints the writer still checkpoints itself past this many WAL pages (about
// 40 MiB), so the WAL stays bounded even if the worker falls behind or dies.
const WRITER_CHECKPOINT_PAGES = 10_000;
// Commits between two background checkpoint requests, at most. A checkpoint copies every page the
// commits since the last one wrote, and consecutive commits rewrite the same pages (index tails,
// postings, vector chunks): asking after every commit made the worker copy them again each time
// (about a sixth of a bulk write's CPU). A few commits' frames waiting in the WAL cost nothing: they
// are durable, and the next request (or closing the file) copies them. Each checkpoint also costs
// two fsyncs whatever it copies: at 8, single `remember` calls (~15 frames each) paid one every 8
// calls; at 32 they write ~500 frames between checkpoints and use ~7% less process CPU (bulk batches
// are paced by FRAMES_PER_CHECKPOINT below either way).
const COMMITS_PER_CHECKPOINT = 32;
// Commits between requests until the worker's replies have measured the pace: a store opened on a
// large file may start with commits of ~1,500 frames, and 32 of them would pass the writer's own
// threshold before the first request.
const FIRST_CADENCE = 4;
// WAL frames the background checkpoint may fall behind by. In a large file a commit writes more
// pages (at a million memories a bulk batch, or an index build step starting new vec0 chunks, wrote
// ~500–1,500), so 8 commits passed the writer's own threshold before the worker was asked, and the
// writer's checkpoint copied the rest inside a COMMIT on the event loop (54 ms of CPU for an 8-row
// build step). Requests therefore come sooner when the worker's replies show large commits.
const FRAMES_PER_CHECKPOINT = 2_000;

/**
 * Commits between background checkpoint requests: as many as write about
 * {@link FRAMES_PER_CHECKPOINT} WAL frames at the pace the worker's last two replies measured
 * (frames in the WAL grew by `frames` over `commits`), within 1 and {@link COMMITS_PER_CHECKPOINT}.
 */
export function commitsPerCheckpoint(frames: number, commits: number): number {
  if (commits <= 0 || frames <= 0) return COMMITS_PER_CHECKPOINT;
  return Math.max(1, Math.min(COMMITS_PER_CHECKPOINT, Math.floor((FRAMES_PER_CHECKPOINT * commits) / frames)));
}

function applyPragmas(db: SqliteDatabase, config: MemoryConfig['store'], isFile: boolean): void {
  db.pragma(`busy_timeout = ${config.busyTimeoutMs}`);
  db.pragma('foreign_keys = ON');
  // Deleted content is overwritten with zeros in the file (and the pages written to the WAL), so a
  // purged or erased memory cannot be read back from free pages (issue 13: deletion we can prove).
  db.pragma('secure_delete = ON');
  if (isFile) {
    db.pragma('journal_mode = WAL');
    // WAL + NORMAL is durable against process crashes; only an OS crash can lose the last commits.
    db.pragma('synchronous = NORMAL');
    db.pragma(`mmap_size = ${config.mmapSizeBytes}`);
    if (config.backgroundCheckpoint) db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
  }
}

// What a caller is told about a database failure, by SQLite's primary result code. The driver's own
// message names tables, columns, constraint and trigger text (and can echo stored values), so it is
// never shown: it stays in the error's `cause` for operators.
const STORAGE_FAILURES: Readonly<Record<string, string>> = {
  SQLITE_BUSY: 'the database is busy (another connection holds the write lock)',
  SQLITE_LOCKED: 'the database is locked',
  SQLITE_FULL: 'the disk is full',
  SQLITE_IOERR: 'the database could not be read or written (I/O error)',
  SQLITE_CORRUPT: 'the database file is corrupt',
  SQLITE_NOTADB: 'the database file is not valid SQLite',
  SQLITE_CANTOPEN: 'the database file could not be opened',
  SQLITE_READONLY: 'the database is read-only',
  SQLITE_CONSTRAINT: 'a write violated a database constraint',
  SQLITE_TOOBIG: 'a value is too large for the database',
  SQLITE_NOMEM: 'the database ran out of memory',
  SQLITE_INTERRUPT: 'the database operation was interrupted',
};

/** The driver's SQLite result code on an error (`SQLITE_CONSTRAINT_UNIQUE`, ...), if it has one. */
function sqliteCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_') ? code : undefined;
}

/**
 * A {@link MemoryError} for a database failure: `STORAGE_ERROR` with a message naming the class of
 * failure and `details.sqliteCode`; the driver's error is kept only as `cause`.
 */
function wrapStorageError(error: unknown, code: 'STORAGE_ERROR' | 'MIGRATION_FAILED' = 'STORAGE_ERROR'): MemoryError {
  if (isMemoryError(error)) return error;
  const full = sqliteCode(error);
  const primary = full?.match(/^SQLITE_[A-Z]+/)?.[0];
  const what = (primary && STORAGE_FAILURES[primary]) ?? 'the database operation failed';
  return new MemoryError(code, `database error: ${what}`, {
    cause: error,
    ...(full ? { details: { sqliteCode: full } } : {}),
  });
}

/**
 * Opens (and migrates) a store.
 *
 * @example
 * ```ts
 * const store = await openStore({ path: ':memory:' });
 * store.write((sql) => sql.run(raw('DELETE FROM memories WHERE agent_id = ?', 'bot')));
 * store.close();
 * ```
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  if ((options.path === undefined) === (options.database === undefined)) {
    throw new MemoryError('INVALID_INPUT', 'openStore needs exactly one of `path` or `database`');
  }
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? createIdGenerator({ clock, random: cryptoRandom });
  const logger = options.logger ?? silentLogger;
  const config = options.config ?? defaultConfig.store;
  const owned = options.database === undefined;

  let db: SqliteDatabase;
  try {
    db = options.database ?? new Database(options.path ?? ':memory:');
  } catch (error) {
    const native = nativeBuildError(error);
    if (native) throw native;
    const wrapped = wrapStorageError(error);
    const hint = nativeBuildHint(error);
    const reason = hint === undefined ? wrapped.message : `${hint} (${wrapped.message})`;
    throw new MemoryError('STORAGE_ERROR', `could not open database ${options.path ?? ''}: ${reason}`, {
      cause: error,
      details: wrapped.details,
    });
  }
  // An anonymous temporary database (path '') has no file other connections could open.
  const isFile = !db.memory && db.name !== '';
  try {
    applyPragmas(db, config, isFile);
    // The scoped text index's triggers call these on every write (runMigrations registers them too).
    registerTextFunctions(db);
  } catch (error) {
    if (owned) db.close();
    throw wrapStorageError(error);
  }

  const vector = await loadVectorExtension(db, config.vectorExtension);
  if (!vector.available)
    logger.warn('sqlite-vec is not available; vector search will use the bounded fallback', { reason: vector.reason });

  let migrations: MigrationResult[];
  try {
    migrations = runMigrations(db, options.migrations ?? MIGRATIONS, clock);
  } catch (error) {
    if (owned) db.close();
    throw wrapStorageError(error, 'MIGRATION_FAILED');
  }
  const failure = migrationFailure(migrations);
  if (failure) {
    if (owned) db.close();
    throw failure;
  }
  logApplied(migrations, logger);

  const checkpointer = isFile && config.backgroundCheckpoint ? startCheckpointer(db.name, logger) : undefined;
  if (isFile && config.backgroundCheckpoint && !checkpointer) db.pragma('wal_autocheckpoint = 1000');
  const executor = new SqlExecutor(db);
  const guard = new TransactionGuard();
  let closed = false;
  let commitsSinceCheckpoint = 0;
  // The checkpoint cadence, from the worker's replies: commits so far, and at the last reply the
  // commits then and the frames in the WAL.
  let commits = 0;
  let cadence = FIRST_CADENCE;
  let lastReply: { commits: number; log: number } | undefined;
  const requestCheckpoint = (worker: NonNullable<typeof checkpointer>): void => {
    const asked = commits;
    void worker.request().then((result) => {
      if (!result || result.log < 0) return;
      // A smaller WAL than last time was restarted in between: no pace to read from it.
      if (lastReply && result.log > lastReply.log)
        cadence = commitsPerCheckpoint(result.log - lastReply.log, asked - lastReply.commits);
      lastReply = { commits: asked, log: result.log };
    });
  };
  const assertOpen = (): void => {
    if (closed) throw new MemoryError('ENGINE_CLOSED', 'the store is closed');
  };

  let portable: ProgramDatabase | undefined;
  const store: Store = {
    dialect: 'sqlite',
    get db() {
      portable ??= sqliteDatabase(store);
      return portable;
    },
    clock,
    ids,
    logger,
    vector,
    migrations,
    guard,
    isFile,
    database: db,
    get closed() {
      return closed;
    },
    checkpoint: (mode = 'passive') => {
      if (checkpointer) return checkpointer.request(mode);
      if (!isFile || mode !== 'truncate' || closed) return Promise.resolve(undefined);
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as CheckpointResult[];
      return Promise.resolve(result);
    },
    write<T>(fn: WriteCallback<T>): T {
      assertOpen();
      const body = (): T => {
        const result = fn(executor);
        if (typeof (result as { then?: unknown } | null)?.then === 'function') {
          throw new MemoryError(
            'TRANSACTION_BOUNDARY',
            'write callbacks must be synchronous; await providers before the transaction',
          );
        }
        return result;
      };
      try {
        if (guard.inWriteTransaction() || db.inTransaction) return db.transaction(body)();
        const result = guard.runWriting(() => db.transaction(body).immediate());
        commits++;
        if (checkpointer && ++commitsSinceCheckpoint >= cadence) {
          commitsSinceCheckpoint = 0;
          requestCheckpoint(checkpointer);
        }
        return result;
      } catch (error) {
        throw wrapStorageError(error);
      }
    },
    read<T>(fn: (sql: SqlExecutor) => T): T {
      assertOpen();
      try {
        return fn(executor);
      } catch (error) {
        throw wrapStorageError(error);
      }
    },
    close() {
      if (closed) return;
      closed = true;
      checkpointer?.close();
      if (owned && db.open) db.close();
    },
  };
  return store;
}

export type { RawQuery };
export { raw };
