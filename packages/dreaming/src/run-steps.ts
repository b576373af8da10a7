import {
  isSqliteStore,
  type PortableStore,
  type Program,
  runSqliteProgram,
  runSqliteWriterProgram,
  runWriterProgram,
  type Store,
  type WriterProgramScopes,
  type WriterTarget,
} from '@memory/store';

/**
 * One transaction a Dreaming step asks for: a read-only program, or a write program that may call
 * the memory writer (it gets the writer's target).
 */
export type Transaction =
  | { readonly write: false; readonly build: () => Program<unknown> }
  | { readonly write: true; readonly build: (target: WriterTarget) => Program<unknown> };

/**
 * A Dreaming step written once for both dialects: a generator that yields transactions and receives
 * their results. JavaScript between two transactions runs once (logging, collecting results);
 * inside a transaction's program it may run again (PostgreSQL re-runs a program on a serialization
 * failure), so a program has no side effects of its own.
 */
export type Steps<R> = Generator<Transaction, R, unknown>;

/** Runs `build` as one read transaction of a step. */
export function* readTx<R>(build: () => Program<R>): Steps<R> {
  return (yield { write: false, build }) as R;
}

/** Runs `build` as one write transaction of a step. */
export function* writeTx<R>(build: (target: WriterTarget) => Program<R>): Steps<R> {
  return (yield { write: true, build }) as R;
}

/**
 * Runs a step synchronously on a SQLite store: each transaction is one `store.read` / `store.write`
 * call, exactly as the synchronous code did. A failed transaction is thrown into the step.
 */
export function runStepsSync<R>(store: Store, steps: Steps<R>): R {
  let next = steps.next();
  while (!next.done) {
    const tx = next.value;
    let result: unknown;
    try {
      result = tx.write
        ? store.write((sql) => runSqliteWriterProgram(sql, tx.build) as never)
        : store.read((sql) => runSqliteProgram(sql, tx.build()));
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/**
 * Runs a step on a store of either dialect: on SQLite as {@link runStepsSync} does; on PostgreSQL
 * each write through `runWriterProgram` (SERIALIZABLE, re-run on a serialization failure, holding
 * the lock keys of `scopes`: the agents whose memories the step may change), each read through
 * `store.db`.
 */
export async function runSteps<R>(store: PortableStore, steps: Steps<R>, scopes: WriterProgramScopes): Promise<R> {
  if (isSqliteStore(store)) return runStepsSync(store, steps);
  let next = steps.next();
  while (!next.done) {
    const tx = next.value;
    let result: unknown;
    try {
      result = tx.write ? await runWriterProgram(store, scopes, tx.build) : await store.db.read(tx.build);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}
