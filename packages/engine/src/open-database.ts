import { type Clock, type IdGenerator, type Logger, type MemoryConfig, MemoryError } from '@memory/core';
import { createQueue, type PortableQueue, type PostgresQueue, type Queue } from '@memory/queue';
import { openStore, type PortableStore, type Store, type VectorSupport } from '@memory/store';
import type { DatabaseOption } from './options.js';
import { unsupportedOnPostgres } from './unsupported.js';

/** The engine's database and queue, on whichever dialect the host chose. */
export interface OpenedDatabase {
  /** The store every part written for both dialects uses (`portable.db.read/write(() => program)`). */
  readonly portable: PortableStore;
  /**
   * The SQLite store, for parts that have no PostgreSQL form yet. On PostgreSQL a stand-in whose
   * calls throw `UNSUPPORTED` (clock, ids, logger and guard read through).
   */
  readonly store: Store;
  /** The queue's promise API, on either dialect. */
  readonly jobs: PortableQueue;
  /** The SQLite queue's synchronous API; on PostgreSQL a stand-in that throws `UNSUPPORTED`. */
  readonly queue: Queue;
  /** The queue the workers and the reaper run on (the synchronous one on SQLite). */
  readonly workerQueue: Queue | PostgresQueue;
  /** Whether vectors have an index (sqlite-vec or pgvector), and why not. */
  readonly vector: VectorSupport;
  /** Closes the store (ends an owned PostgreSQL pool). */
  close(): Promise<void>;
}

interface OpenDeps {
  readonly clock?: Clock | undefined;
  readonly ids?: IdGenerator | undefined;
  readonly logger?: Logger | undefined;
  readonly config: MemoryConfig;
}

/** Opens (and migrates) the store the option names, and its queue. */
export async function openDatabase(database: DatabaseOption, deps: OpenDeps): Promise<OpenedDatabase> {
  const common = {
    ...(deps.clock ? { clock: deps.clock } : {}),
    ...(deps.ids ? { ids: deps.ids } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
  };
  if ('postgres' in database) return openPostgres(database.postgres, deps, common);
  const store = await openStore({
    ...('path' in database ? { path: database.path } : { database: database.database }),
    ...common,
    config: deps.config.store,
  });
  const queue = createQueue({ store, config: deps.config.queue });
  return {
    portable: store,
    store,
    jobs: queue.portable,
    queue,
    workerQueue: queue,
    vector: store.vector,
    close: async () => store.close(),
  };
}

async function openPostgres(
  target: Extract<DatabaseOption, { postgres: unknown }>['postgres'],
  deps: OpenDeps,
  common: { clock?: Clock; ids?: IdGenerator; logger?: Logger },
): Promise<OpenedDatabase> {
  // Loaded only here: hosts on SQLite never need `pg` installed.
  let postgres: typeof import('@memory/store/postgres');
  let queues: typeof import('@memory/queue');
  try {
    postgres = await import('@memory/store/postgres');
    queues = await import('@memory/queue');
  } catch (error) {
    throw new MemoryError(
      'INVALID_CONFIG',
      'options.database.postgres needs the pg package: npm install pg (PGlite: @electric-sql/pglite)',
      { cause: error },
    );
  }
  const store = await postgres.openPostgresStore({
    target,
    ...common,
    vectorExtension: deps.config.store.vectorExtension,
  });
  const jobs = queues.createPostgresQueue({ store, config: deps.config.queue });
  const vector: VectorSupport = store.vector.available
    ? { available: true, version: `pgvector ${store.vector.version ?? ''}`.trim() }
    : { available: false, reason: store.vector.reason ?? 'pgvector is not installed on the server' };
  // `dialect` tells the truth and `db` runs programs on PostgreSQL: code already written for both
  // dialects works through the stand-in too; only the synchronous SQLite calls refuse.
  const sqliteOnly = unsupportedOnPostgres<Store>('store', {
    dialect: store.dialect as unknown as Store['dialect'],
    db: store.db,
    clock: store.clock,
    ids: store.ids,
    logger: store.logger,
    guard: store.guard,
    migrations: store.migrations,
    vector,
    isFile: false,
    get closed() {
      return store.closed;
    },
  });
  return {
    portable: store,
    store: sqliteOnly,
    jobs,
    queue: unsupportedOnPostgres<Queue>('queue', { config: deps.config.queue, portable: jobs }),
    workerQueue: jobs,
    vector,
    close: () => store.close(),
  };
}
