import type { SqlExecutor } from '../internal/sql.js';
import { POSTGRES_WRITER, type WriterTarget } from '../memory-writer/context.js';
import type { Store } from '../open-store.js';
import { isSerializationFailure } from '../postgres/errors.js';
import type { PortableStore, WriteOptions } from './database.js';
import { type Program, portable, run } from './program.js';
import { runSqliteProgram } from './run-sqlite.js';

/** True when a portable store is a SQLite {@link Store} (it has a synchronous executor). */
export function isSqliteStore(store: PortableStore): store is Store {
  return store.dialect === 'sqlite' && 'database' in store;
}

/**
 * Runs a program that calls the memory writer on a SQLite executor, inside the caller's
 * transaction: the writer's own text indexing stands in for the insert trigger for the whole
 * program (as `createMemories` does), so a memory created anywhere in it is indexed once.
 */
export function runSqliteWriterProgram<R>(sql: SqlExecutor, build: (target: WriterTarget) => Program<R>): R {
  return sql.withMemoryTextIndexDeferred(() => runSqliteProgram(sql, build({ dialect: 'sqlite', sql })));
}

/**
 * Runs a write program that may call the memory writer, on either dialect, as one transaction:
 * on SQLite synchronously on the store's executor (the writer mirrors vectors into vec0 there), on
 * PostgreSQL through `store.db.write` (SERIALIZABLE, re-run from scratch on a serialization failure,
 * so `build` must be free of JavaScript side effects).
 */
export function writeMemoriesWithTarget<R>(
  store: PortableStore,
  build: (target: WriterTarget) => Program<R>,
  options?: WriteOptions,
): Promise<R> {
  if (isSqliteStore(store)) {
    try {
      return Promise.resolve(
        store.write<R>(((sql: SqlExecutor) => runSqliteWriterProgram(sql, build)) as (
          sql: SqlExecutor,
        ) => R extends PromiseLike<unknown> ? never : R),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return store.db.write(() => build(POSTGRES_WRITER), options);
}

/** What a step run under a savepoint gave: its value, or the error that rolled it back. */
export type SavepointOutcome<R> =
  | { readonly ok: true; readonly value: R }
  | { readonly ok: false; readonly error: unknown };

/**
 * Runs `body` under a savepoint of the caller's transaction: when it throws, only its own writes
 * are rolled back and the error is returned, so the transaction can go on (on PostgreSQL a failed
 * statement would otherwise abort the whole transaction). A serialization failure is thrown on:
 * the whole transaction must run again.
 */
export function* withSavepoint<R>(name: string, body: () => Program<R>): Program<SavepointOutcome<R>> {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new TypeError(`not a savepoint name: ${name}`);
  yield* run(portable(`SAVEPOINT ${name}`));
  try {
    const value = yield* body();
    yield* run(portable(`RELEASE SAVEPOINT ${name}`));
    return { ok: true, value };
  } catch (error) {
    if (isSerializationFailure(error)) throw error;
    yield* run(portable(`ROLLBACK TO SAVEPOINT ${name}`));
    yield* run(portable(`RELEASE SAVEPOINT ${name}`));
    return { ok: false, error };
  }
}
