import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { DatabaseSchema } from '../schema/database.js';
import type { SqliteDatabase, SqliteStatement } from './sqlite.js';
import { textIndexDeferral } from './text-functions.js';

/**
 * A compile-only Kysely instance: it builds typed queries, which {@link SqlExecutor} then runs
 * synchronously on better-sqlite3 with cached prepared statements. Holds no connection or state.
 */
export const queryBuilder = new Kysely<DatabaseSchema>({
  dialect: {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  },
});

/** A raw statement with its parameters, for FTS5, vec0 and hot paths. */
export interface RawQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

type Query<R> = CompiledQuery<R> | RawQuery;

export interface RunResult {
  readonly changes: number;
}

const STATEMENT_CACHE_SIZE = 256;

/** What every executor of one connection shares (tests may hold a second executor of a store's). */
export interface ConnectionState {
  /**
   * Outermost store writes begun on this connection (`Store.write`): when it moves, every
   * transaction before, with its savepoints, has committed or rolled back. Caches of committed
   * rows compare it with the count when they last changed what they cache (see `findVectorIndex`).
   */
  outerWrites: number;
}

const connectionStates = new WeakMap<SqliteDatabase, ConnectionState>();

/**
 * Runs compiled or raw queries synchronously. Prepared statements are cached by SQL text (Kysely
 * alone prepares on every call, about 2.7× slower on point queries).
 */
export class SqlExecutor {
  readonly #db: SqliteDatabase;
  readonly #cache = new Map<string, SqliteStatement>();

  /**
   * The state every executor of this connection shares (an own field, so a wrapper spreading an
   * executor keeps it).
   */
  readonly connection: ConnectionState;

  constructor(db: SqliteDatabase) {
    this.#db = db;
    let state = connectionStates.get(db);
    if (!state) {
      state = { outerWrites: 0 };
      connectionStates.set(db, state);
    }
    this.connection = state;
  }

  prepare(sql: string): SqliteStatement {
    let statement = this.#cache.get(sql);
    if (statement) return statement;
    statement = this.#db.prepare(sql);
    this.#cache.set(sql, statement);
    // First in, first out: the store issues a small, fixed set of statements, so eviction is rare.
    if (this.#cache.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.#cache.keys().next().value;
      if (oldest !== undefined) this.#cache.delete(oldest);
    }
    return statement;
  }

  all<R>(query: Query<R>): R[] {
    return this.prepare(query.sql).all(...query.parameters) as R[];
  }

  /** Rows as arrays of column values, in column order: no object per row, for long scans. */
  arrays(query: RawQuery): unknown[][] {
    const statement = this.prepare(query.sql);
    // A statement's SQL text fixes its mode: this one is only ever read as arrays.
    if (!statement.reader) return [];
    return statement.raw(true).all(...query.parameters) as unknown[][];
  }

  get<R>(query: Query<R>): R | undefined {
    return this.prepare(query.sql).get(...query.parameters) as R | undefined;
  }

  run(query: Query<unknown>): RunResult {
    const info = this.prepare(query.sql).run(...query.parameters);
    return { changes: info.changes };
  }

  /** Whether this connection is inside {@link withMemoryTextIndexDeferred} now. */
  get memoryTextIndexDeferred(): boolean {
    return textIndexDeferral(this.#db).deferred;
  }

  /**
   * Runs `fn` with the memory triggers that follow a memory's text idle on this connection: the
   * insert trigger (text index and live count, migrations 20–21) and the text index's update
   * trigger (migration 21). The caller indexes and counts the memories it inserts, and moves the
   * text index rows of those it changes, itself (the memory writer does). Synchronous, so no other
   * write can land inside it.
   */
  withMemoryTextIndexDeferred<T>(fn: () => T): T {
    const deferral = textIndexDeferral(this.#db);
    if (deferral.deferred) return fn();
    deferral.deferred = true;
    try {
      return fn();
    } finally {
      deferral.deferred = false;
    }
  }
}

/** Builds a {@link RawQuery}. */
export function raw(sql: string, ...parameters: unknown[]): RawQuery {
  return { sql, parameters };
}
