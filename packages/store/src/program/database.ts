import type { Clock, IdGenerator, Logger } from '@memory/core';
import type { Store, WriteCallback } from '../open-store.js';
import type { TransactionGuard } from '../transaction-guard.js';
import type { Dialect, Program } from './program.js';
import { runSqliteProgram } from './run-sqlite.js';

/**
 * How a write wants to run. PostgreSQL honours both; SQLite ignores them (its one writer already
 * serializes every write).
 */
export interface WriteOptions {
  /**
   * Keys the write holds a session advisory lock on (every process sharing the database agrees on
   * them), taken in sorted order before the transaction begins and released after it ends. Writes
   * sharing a key then run one at a time instead of failing serialization against each other on
   * the rows they all update (an agent's text statistics and counts): without it, many writers of
   * one scope at once retry until some run out of attempts. Taken before BEGIN, so the transaction's
   * snapshot already sees the previous holder's commit.
   */
  readonly lockKeys?: readonly string[];
  /**
   * `read committed` is for programs whose correctness rests on row locks alone, such as a
   * queue lease taking the oldest unlocked row with `FOR UPDATE SKIP LOCKED`, or a completion that
   * updates one row by its lease token. The default is SERIALIZABLE.
   */
  readonly isolation?: 'read committed';
}

/**
 * A store as code written for both dialects sees it: programs in, results out, asynchronously.
 * `PostgresStore` is one; {@link sqliteDatabase} makes one of a SQLite {@link Store}.
 */
export interface Database {
  readonly dialect: Dialect;
  /**
   * Runs a program in one write transaction; `program` makes a fresh generator per attempt (on
   * PostgreSQL a serialization failure runs it again from the start, so a program must not have JS
   * side effects that cannot happen twice: do those after the promise resolves).
   */
  write<R>(program: () => Program<R>, options?: WriteOptions): Promise<R>;
  /** Runs a read-only program on one snapshot. */
  read<R>(program: () => Program<R>): Promise<R>;
}

/**
 * A SQLite store as a {@link Database}: each program runs synchronously in one `store.write` /
 * `store.read` call (so exactly as fast, and as atomic, as the synchronous code paths), and the
 * returned promise is already settled, but for a write that finds the WAL past its restart point:
 * it first waits for the background checkpoint (`Store.walBacklog`), as memory and transcript
 * writes do, so a host's stream of note, registry or Dreaming writes restarts the WAL instead of
 * growing it to the writer's own checkpoint (a copy and fsync inside a COMMIT on the event loop).
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
    write: <R>(program: () => Program<R>) => {
      const run = () => settle(() => store.write<R>(((sql) => runSqliteProgram(sql, program())) as WriteCallback<R>));
      const backlog = store.walBacklog();
      return backlog ? backlog.then(run) : run();
    },
    read: (program) => settle(() => store.read((sql) => runSqliteProgram(sql, program()))),
  };
}

/**
 * A store of either dialect, as dialect-neutral code sees it: a {@link Database} for programs, and
 * the clock, ids, logger and provider guard it was opened with. A SQLite `Store` and a
 * `PostgresStore` are both one, so a part written against this runs on either.
 */
export interface PortableStore {
  readonly dialect: Dialect;
  /** Programs in, results out, asynchronously (on SQLite the promise is already settled). */
  readonly db: Database;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  readonly logger: Logger;
  /** Provider wrappers that refuse calls from inside a write transaction. */
  readonly guard: TransactionGuard;
  /** True once the store was closed. */
  readonly closed: boolean;
}
