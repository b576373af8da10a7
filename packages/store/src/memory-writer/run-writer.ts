import { MemoryError } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Store, WriteCallback } from '../open-store.js';
import type { PortableStore } from '../program/database.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { memoryScopeLockKeys, POSTGRES_WRITER, type WriterTarget } from './context.js';

/**
 * Whether a portable store is a SQLite {@link Store} (the executor-level API: `write(sql => ...)`,
 * the vector extension, checkpoints). Every SQLite `PortableStore` is one: `openStore` makes the
 * only kind.
 */
export function isSqliteStore(store: PortableStore): store is Store {
  return store.dialect === 'sqlite' && 'database' in store;
}

/** Which memory scopes a {@link runWriterProgram} call writes (and so locks on PostgreSQL). */
export interface WriterProgramScopes {
  /**
   * The agents whose memories the program may create, change, forget, recover or delete. On
   * PostgreSQL the write holds their scope lock keys (`memoryScopeLockKeys`) from before BEGIN
   * until after COMMIT. Required, so every caller decides: `[]` only for a program that changes no
   * memory, or one whose scopes cannot be known before its transaction and that adds no `memories`
   * or `memory_history` row (the maintenance purge: it only deletes).
   */
  readonly agentIds: Iterable<string>;
}

/**
 * Runs a write program that needs to know where it runs (a {@link WriterTarget}: the memory
 * writer's `createMemoriesProgram`, `forgetMemoryProgram`, ..., or anything calling them) in one
 * write transaction on either dialect, and resolves with its result. The one way to run such a
 * program outside a caller's own SQLite transaction (inside one: {@link runSqliteWriterProgram}).
 *
 * - Lock keys (PostgreSQL): the write holds the scope lock keys of `scopes.agentIds`, so writers of
 *   one scope take turns (see `memoryScopeLockKeys`). Rule: a program that changes memories of a
 *   scope names that scope. Conflict detection's key index relies on it: it reads a scope's
 *   `memory_history` past a mark while holding the scope's keys, which is exact only if no writer
 *   of the scope is in flight then (a history or memory row below the mark committing later would
 *   never be read). SQLite has one writer and ignores them.
 * - Text index (SQLite): the memory insert trigger is always idle for the whole program and the
 *   writer indexes its own inserts (as `createMemories` does): every `memories` insert in the
 *   library goes through `createMemoriesProgram`, which writes its batch's postings itself; left on,
 *   the trigger would index each of them a second time. A program run here must therefore insert
 *   memories only through the writer (never `insertScopeRow(..., 'memories', ...)` or raw SQL,
 *   whose rows only the trigger indexes: scope imports run in plain writes for that reason).
 * - PostgreSQL runs it SERIALIZABLE and re-runs it from the start on a serialization failure, so
 *   the program must have no JavaScript side effects that cannot happen twice. On SQLite it runs in
 *   one synchronous `store.write` (the returned promise is already settled).
 *
 * @example
 * ```ts
 * const forgotten = await runWriterProgram(store, { agentIds: [agentId] }, function* (target) {
 *   return yield* forgetMemoryProgram(target, deps, { agentId, id, audit }, store.clock.now());
 * });
 * ```
 */
export function runWriterProgram<R>(
  store: PortableStore,
  scopes: WriterProgramScopes,
  program: (target: WriterTarget) => Program<R>,
): Promise<R> {
  if (scopes?.agentIds === undefined)
    return Promise.reject(new MemoryError('INVALID_INPUT', 'a writer program names the scopes it writes (agentIds)'));
  if (store.dialect !== 'sqlite')
    return store.db.write(() => program(POSTGRES_WRITER), { lockKeys: memoryScopeLockKeys(scopes.agentIds) });
  if (!isSqliteStore(store))
    return Promise.reject(new MemoryError('INVALID_INPUT', 'a SQLite memory writer needs a store from openStore'));
  try {
    // A program's result is never a promise (it cannot await), which WriteCallback's type cannot see.
    return Promise.resolve(store.write<R>(((sql) => runSqliteWriterProgram(sql, program)) as WriteCallback<R>));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * {@link runWriterProgram}'s SQLite form inside the caller's own write transaction (a synchronous
 * API such as Dreaming's `runStepsSync`): the program gets the executor as its target, with the
 * text index's insert trigger idle throughout, for the reasons given there.
 */
export function runSqliteWriterProgram<R>(sql: SqlExecutor, program: (target: WriterTarget) => Program<R>): R {
  return sql.withMemoryTextIndexDeferred(() => runSqliteProgram(sql, program({ dialect: 'sqlite', sql })));
}
