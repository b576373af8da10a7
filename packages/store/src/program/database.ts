import type { Store, WriteCallback } from '../open-store.js';
import type { Dialect, Program } from './program.js';
import { runSqliteProgram } from './run-sqlite.js';

/**
 * A store as code written for both dialects sees it: programs in, results out, asynchronously.
 * `PostgresStore` is one; {@link sqliteDatabase} makes one of a SQLite {@link Store}.
 */
export interface Database {
  readonly dialect: Dialect;
  /** Runs a program in one write transaction; `program` makes a fresh generator per attempt. */
  write<R>(program: () => Program<R>): Promise<R>;
  /** Runs a read-only program on one snapshot. */
  read<R>(program: () => Program<R>): Promise<R>;
}

/**
 * A SQLite store as a {@link Database}: each program runs synchronously in one `store.write` /
 * `store.read` call (so exactly as fast, and as atomic, as the synchronous code paths), and the
 * returned promise is already settled.
 */
export function sqliteDatabase(store: Store): Database {
  const settle = <R>(work: () => R): Promise<R> => {
    try {
      return Promise.resolve(work());
    } catch (error) {
      return Promise.reject(error);
    }
  };
  return {
    dialect: 'sqlite',
    // A program's result is never a promise (it cannot await), which WriteCallback's type cannot see.
    write: <R>(program: () => Program<R>) =>
      settle(() => store.write<R>(((sql) => runSqliteProgram(sql, program())) as WriteCallback<R>)),
    read: (program) => settle(() => store.read((sql) => runSqliteProgram(sql, program()))),
  };
}
