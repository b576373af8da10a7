import type { Store } from '../open-store.js';
import type { PortableStore } from '../program/database.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { POSTGRES_WRITER, type WriterTarget } from './context.js';

/**
 * Runs a write program that needs to know where it runs (a {@link WriterTarget}) on a store of
 * either dialect: on SQLite inside one `store.write` with its executor (the vec0 index writer runs
 * on it between the program's statements), on PostgreSQL through `db.write` (re-run from the start
 * on a serialization failure, so the program must have no side effects outside the database).
 *
 * @example
 * ```ts
 * const purged = await writeWithTarget(store, (target) => purgeMemoriesProgram(target, deps, due, now));
 * ```
 */
export function writeWithTarget<R>(store: PortableStore, program: (target: WriterTarget) => Program<R>): Promise<R> {
  if (store.dialect !== 'sqlite') return store.db.write(() => program(POSTGRES_WRITER));
  // A SQLite PortableStore is a SQLite Store (see open-store.ts).
  const sqlite = store as Store;
  try {
    // A program's result is never a promise (it cannot await), which the store's callback type cannot see.
    return Promise.resolve(
      sqlite.write(
        (sql) =>
          runSqliteProgram(sql, program({ dialect: 'sqlite', sql })) as R extends PromiseLike<unknown> ? never : R,
      ),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}
