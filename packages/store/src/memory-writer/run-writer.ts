import { MemoryError } from '@memory/core';
import type { Store, WriteCallback } from '../open-store.js';
import type { PortableStore } from '../program/database.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { memoryScopeLockKeys, POSTGRES_WRITER, type WriterTarget } from './context.js';

/**
 * Whether a portable store is a SQLite {@link Store} (the executor-level API: `write(sql => ...)`,
 * the vector extension). Every SQLite `PortableStore` is one: `openStore` makes the only kind.
 */
export function isSqliteStore(store: PortableStore): store is Store {
  return store.dialect === 'sqlite' && 'database' in store && typeof (store as Partial<Store>).write === 'function';
}

/**
 * Runs a memory writer program (built with the {@link WriterTarget} it is given: `createMemoriesProgram`,
 * `changeMemoryProgram`, ...) in one write transaction on either dialect, and resolves with its result.
 *
 * - SQLite: one synchronous `store.write`, with the text index's insert trigger deferred (the writer
 *   indexes its own inserts), exactly as `createMemories` runs; the promise is already settled.
 * - PostgreSQL: SERIALIZABLE, holding the lock keys of the `agentIds` scopes (writers of one scope
 *   take turns: see `memoryScopeLockKeys`). Conflict detection's key index relies on every memory
 *   writer of a scope holding them (history rows of a scope then commit in seq order). The program
 *   is re-run from the start on a serialization failure, so its JS side effects must be repeatable.
 *
 * @example
 * ```ts
 * const [created] = await runMemoryWrite(store, ['bot'], (target) =>
 *   createMemoriesProgram(target, deps, [memory], store.clock.now()),
 * );
 * ```
 */
export function runMemoryWrite<R>(
  store: PortableStore,
  agentIds: Iterable<string>,
  program: (target: WriterTarget) => Program<R>,
): Promise<R> {
  if (store.dialect === 'sqlite') {
    if (!isSqliteStore(store))
      return Promise.reject(new MemoryError('INVALID_INPUT', 'a SQLite memory writer needs a store from openStore'));
    try {
      return Promise.resolve(
        // A program's result is never a promise (it cannot await), which WriteCallback's type cannot see.
        store.write<R>(((sql) =>
          sql.withMemoryTextIndexDeferred(() =>
            runSqliteProgram(sql, program({ dialect: 'sqlite', sql })),
          )) as WriteCallback<R>),
      );
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return store.db.write(() => program(POSTGRES_WRITER), { lockKeys: memoryScopeLockKeys(agentIds) });
}

/**
 * A program run in a write holding the scopes' lock keys on PostgreSQL (a plain write on SQLite):
 * for reads that must not overlap a memory writer of those scopes (see `scopeHistorySinceProgram`).
 */
export function runScopeLocked<R>(
  store: PortableStore,
  agentIds: Iterable<string>,
  program: () => Program<R>,
): Promise<R> {
  return store.db.write(program, { lockKeys: memoryScopeLockKeys(agentIds) });
}
