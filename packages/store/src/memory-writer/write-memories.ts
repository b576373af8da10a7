import type { SqlExecutor } from '../internal/sql.js';
import type { Store, WriteCallback } from '../open-store.js';
import type { PortableStore } from '../program/database.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { memoryScopeLockKeys, POSTGRES_WRITER, type WriterTarget } from './context.js';

/** True when a portable store is a SQLite `Store` (its executor, vec0 index and checkpoints exist). */
export function isSqliteStore(store: PortableStore): store is Store {
  return store.dialect === 'sqlite' && 'checkpoint' in store;
}

/**
 * Runs a program that writes one agent's memories through the memory writer (with whatever else it
 * writes) in one write transaction, on either dialect. The writer's programs need their target:
 * on SQLite the executor (the vec0 index and executor hooks run on it between statements), on
 * PostgreSQL nothing, and there the write holds the scope's lock key, so writers of one scope take
 * turns. With `deferTextIndex` (a program that creates memories) SQLite's text index insert
 * trigger stays idle and the writer indexes the batch itself, as `createMemories` does.
 *
 * @example
 * ```ts
 * const forgotten = await writeMemories(store, agentId, function* (target) {
 *   return yield* forgetMemoryProgram(target, deps, { agentId, id, audit }, now);
 * });
 * ```
 */
export function writeMemories<R>(
  store: PortableStore,
  agentId: string,
  program: (target: WriterTarget) => Program<R>,
  options: { readonly deferTextIndex?: boolean } = {},
): Promise<R> {
  if (!isSqliteStore(store))
    return store.db.write(() => program(POSTGRES_WRITER), { lockKeys: memoryScopeLockKeys([agentId]) });
  try {
    const run = (sql: SqlExecutor): R => {
      const go = () => runSqliteProgram(sql, program({ dialect: 'sqlite', sql }));
      return options.deferTextIndex ? sql.withMemoryTextIndexDeferred(go) : go();
    };
    // A program's result is never a promise (it cannot await), which WriteCallback's type cannot see.
    return Promise.resolve(store.write(run as WriteCallback<R>));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * Runs a memory-writer program inside the caller's SQLite write (a part with no PostgreSQL form
 * yet, such as the registry's cascade delete, calling a part that has one).
 */
export function runMemoryWriteOnSqlite<R>(sql: SqlExecutor, program: (target: WriterTarget) => Program<R>): R {
  return runSqliteProgram(sql, program({ dialect: 'sqlite', sql }));
}
