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
import { createWalPacer } from './internal/wal-pacer.js';
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
  /** WAL lengths at which checkpoints act; for tests (small loads reach them). */
  readonly wal?: Partial<WalLimits>;
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
  /**
   * Undefined, or a promise an async writer awaits before its next write transaction (never
   * rejects). Past {@link WalLimits.restartFrames} it resolves once a background checkpoint has
   * copied every commit, so that transaction restarts the WAL instead of the WAL growing to the
   * writer's own checkpoint, which copies and fsyncs inside a COMMIT on the event loop. Bulk writers
   * (`rememberMany`, the vector index's upkeep) call it between transactions.
   */
  walBacklog(): Promise<void> | undefined;
  /** True once `close()` ran. */
  readonly closed: boolean;
  /**
   * Closes the database if the store opened it; usable synchronously: calls after it fail with
   * `ENGINE_CLOSED` and this connection is closed when it returns. The promise resolves once no
   * thread of this store holds the database file any more: the background checkpoint worker has
   * closed its connection and exited (a worker that has not after 5 s is terminated, with a
   * warning, and the promise waits until the native call it was in returns). Await it before deleting, moving or reopening the file elsewhere. Never rejects;
   * idempotent (every call returns the same promise).
   */
  close(): Promise<void>;
  /**
   * Runs `listener` once when the store closes (at once when it is closed already): per-store
   * caches free their memory there.
   */
  onClose(listener: () => void): void;
}

/** WAL lengths (in frames, one page each) at which the checkpoints of a file database act. */
export interface WalLimits {
  /**
   * Past this many frames async writers wait between two transactions (`Store.walBacklog`) for a
   * background checkpoint that covers every commit, so their next transaction restarts the WAL.
   * @default 16000 (about 64 MiB)
   */
  readonly restartFrames: number;
  /**
   * The writing connection's own checkpoint (`wal_autocheckpoint`), a last resort that copies inside
   * a COMMIT on the event loop: it bounds the WAL when nothing else restarts it (writers that never
   * wait, a checkpoint worker that died). @default 64000 (about 250 MiB)
   */
  readonly writerCheckpointFrames: number;
}

// A 1M-memory bulk load reaches 16,000 frames every ~10–30 commits; a wait costs about one
// checkpoint of the last commits' frames, so waiting more often costs the load more. The writer's
// own threshold was 10,000, which such a load passed between two of its waits whenever one could
// not settle the WAL (then every COMMIT that found the worker idle checkpointed on the event loop).
const DEFAULT_WAL_LIMITS: WalLimits = { restartFrames: 16_000, writerCheckpointFrames: 64_000 };
// Without the worker (it could not start, or stopped) the writer checkpoints at SQLite's default.
const WRITER_ALONE_CHECKPOINT_PAGES = 1000;

function applyPragmas(db: SqliteDatabase, config: MemoryConfig['store'], isFile: boolean, wal: WalLimits): void {
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
    if (config.backgroundCheckpoint) db.pragma(`wal_autocheckpoint = ${wal.writerCheckpointFrames}`);
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
 * await store.close();
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
  const wal = { ...DEFAULT_WAL_LIMITS, ...options.wal };

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
    applyPragmas(db, config, isFile, wal);
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

  const writerAlone = (): void => {
    if (db.open) db.pragma(`wal_autocheckpoint = ${WRITER_ALONE_CHECKPOINT_PAGES}`);
  };
  const checkpointer =
    isFile && config.backgroundCheckpoint ? startCheckpointer(db.name, logger, writerAlone) : undefined;
  if (isFile && config.backgroundCheckpoint && !checkpointer) writerAlone();
  const pacer = checkpointer ? createWalPacer(checkpointer, wal.restartFrames) : undefined;
  const executor = new SqlExecutor(db);
  const guard = new TransactionGuard();
  // One transaction function for every write: `db.transaction(fn)` builds five wrappers per call
  // (~5 µs, a tenth of a single remember's JavaScript). The body it runs is the innermost write's;
  // a nested write runs as a savepoint inside the outer one, as before.
  let body: (() => unknown) | undefined;
  const transaction = db.transaction(() => (body as () => unknown)());
  const inTransaction = <T>(run: () => T, immediate: boolean): T => {
    const outer = body;
    body = run;
    try {
      return (immediate ? transaction.immediate() : transaction()) as T;
    } finally {
      body = outer;
    }
  };
  let closed = false;
  let closing: Promise<void> | undefined;
  const closeListeners: Array<() => void> = [];
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
      if (pacer) return pacer.checkpoint(mode);
      if (!isFile || mode !== 'truncate' || closed) return Promise.resolve(undefined);
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as CheckpointResult[];
      return Promise.resolve(result);
    },
    walBacklog: () => (closed ? undefined : pacer?.backlog()),
    write<T>(fn: WriteCallback<T>): T {
      assertOpen();
      const checked = (): T => {
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
        if (guard.inWriteTransaction() || db.inTransaction) return inTransaction(checked, false);
        executor.connection.outerWrites++;
        const result = guard.runWriting(() => inTransaction(checked, true));
        pacer?.committed();
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
      if (closing) return closing;
      closed = true;
      try {
        // This connection first: the worker's is then the last one, and closing it runs SQLite's
        // final checkpoint (and the WAL file's removal) on the worker thread, not on this one.
        if (owned && db.open) db.close();
      } finally {
        closing = checkpointer?.close() ?? Promise.resolve();
      }
      for (const listener of closeListeners.splice(0)) {
        try {
          listener();
        } catch (error) {
          logger.warn('a close listener failed', { error: String(error) });
        }
      }
      return closing;
    },
    onClose(listener) {
      if (closed) listener();
      else closeListeners.push(listener);
    },
  };
  return store;
}

export type { RawQuery };
export { raw };
