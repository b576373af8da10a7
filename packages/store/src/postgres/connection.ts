import type { PGlite } from '@electric-sql/pglite';
import { type Logger, MemoryError } from '@memory/core';
import pg from 'pg';
import type { RawQuery } from '../internal/sql.js';

/** A checked-out connection, as `pg`'s `PoolClient` has it. */
export interface PostgresClient {
  query(config: { text: string; values?: unknown[] }): Promise<{
    rows: unknown[];
    rowCount: number | null;
    fields?: ReadonlyArray<{ name: string; dataTypeID: number }>;
  }>;
  release(destroy?: boolean | Error): void;
}

/** A connection pool, as `pg`'s `Pool` has it. */
export interface PostgresPool {
  connect(): Promise<PostgresClient>;
  end(): Promise<void>;
}

/** An in-process PGlite database (from `@electric-sql/pglite`), as far as the store needs it. */
export interface PGliteDatabase {
  readonly waitReady: Promise<void>;
  readonly closed: boolean;
  /** Runs `fn` while no other query or transaction of this PGlite runs (PGlite's own lock). */
  runExclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Where a PostgreSQL store lives: a connection string (the store owns its pool), a host's `pg.Pool`
 * (left open on close), or an in-process PGlite database (one connection; left open on close).
 */
export type PostgresTarget =
  | { readonly connectionString: string; readonly maxConnections?: number }
  | { readonly pool: PostgresPool }
  | { readonly pglite: PGliteDatabase };

const INT8 = 20;
const NUMERIC = 1700;

/**
 * Runs one statement on a client. Rows come back as SQLite's driver returns them, so one program
 * reads the same shapes on both: 64-bit integers and numerics as numbers (counts, seqs and epoch-ms
 * times stay below 2^53), everything else as `pg` parses it. The conversion reads the result's column
 * types, so it needs no change to pg's process-wide parsers or to a host's pool.
 */
export async function execute(
  client: PostgresClient,
  statement: RawQuery,
): Promise<{ rows: unknown[]; rowCount: number }> {
  const result = await client.query({ text: statement.sql, values: [...statement.parameters] });
  const numeric = (result.fields ?? []).filter((f) => f.dataTypeID === INT8 || f.dataTypeID === NUMERIC);
  if (numeric.length > 0) {
    for (const row of result.rows as Array<Record<string, unknown>>) {
      for (const { name } of numeric) {
        const value = row[name];
        if (typeof value === 'string') row[name] = Number(value);
      }
    }
  }
  return { rows: result.rows, rowCount: result.rowCount ?? 0 };
}

/**
 * A pool for the target, and whether the store owns (and so ends) it. A pool the store creates logs
 * the errors of its idle connections (a restarted server, a dropped network): unhandled, pg's
 * `error` event would end the host's process.
 */
export async function poolFor(target: PostgresTarget, logger: Logger): Promise<{ pool: PostgresPool; owned: boolean }> {
  if ('pool' in target) return { pool: target.pool, owned: false };
  const onIdleError = (error: Error) =>
    logger.warn('an idle PostgreSQL connection failed; the pool replaces it', { reason: error.message });
  if ('connectionString' in target) {
    if (typeof target.connectionString !== 'string' || target.connectionString.length === 0)
      throw new MemoryError('INVALID_INPUT', 'postgres.connectionString must be a non-empty string');
    const max = target.maxConnections ?? 10;
    if (!Number.isInteger(max) || max < 1)
      throw new MemoryError('INVALID_INPUT', 'postgres.maxConnections must be a positive integer');
    const pool = new pg.Pool({ connectionString: target.connectionString, max });
    pool.on('error', onIdleError);
    return { pool, owned: true };
  }
  if (target.pglite.closed) throw new MemoryError('INVALID_INPUT', 'the PGlite database is closed');
  await target.pglite.waitReady;
  // PGlite has one connection: a pool of one hands it to one transaction of this store at a time,
  // and PGlite's lock (below) to one transaction of any store on the instance.
  const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
  const config = createPgConfig(target.pglite as unknown as PGlite);
  const pool = new pg.Pool({ ...config, max: 1 });
  pool.on('error', onIdleError);
  return { pool: exclusivePool(pool, target.pglite), owned: true };
}

/**
 * A pool whose client holds PGlite's exclusive lock from `connect` to `release`. PGlite is one
 * session, and each store's pool talks to it through its own protocol stream: two stores (two
 * engines, or an engine and a copy) on one instance would otherwise interleave their statements in
 * that session, one's BEGIN inside the other's transaction, and hang. The lock is PGlite's own, so
 * the host's `pglite.query` calls wait for a store transaction too, and it is per instance whichever
 * copy of this module opened the store.
 */
function exclusivePool(pool: PostgresPool, pglite: PGliteDatabase): PostgresPool {
  return {
    async connect() {
      const unlock = await lockExclusively(pglite);
      let client: PostgresClient;
      try {
        client = await pool.connect();
      } catch (error) {
        unlock();
        throw error;
      }
      let released = false;
      return {
        query: (config) => client.query(config),
        release(destroy) {
          if (released) return;
          released = true;
          try {
            client.release(destroy);
          } finally {
            unlock();
          }
        },
      };
    },
    end: () => pool.end(),
  };
}

/** Takes PGlite's exclusive lock; the returned function gives it back. */
function lockExclusively(pglite: PGliteDatabase): Promise<() => void> {
  return new Promise((locked, failed) => {
    pglite.runExclusive(() => new Promise<void>((unlock) => locked(() => unlock()))).catch(failed);
  });
}
