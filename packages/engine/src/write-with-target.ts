import { POSTGRES_WRITER, type Program, type WriterTarget } from '@memory/store';
import { runSqliteProgram } from '@memory/store/sql';
import type { EngineContext } from './context.js';

/**
 * Runs a write program that needs to know where it runs (a {@link WriterTarget}): on SQLite inside
 * one `store.write` with its executor (SQLite's vec0 index writer runs on it between the program's
 * statements), on PostgreSQL through `portable.db.write` (retried from the start on a
 * serialization failure, so the program must have no side effects outside the database).
 */
export function writeWithTarget<R>(
  ctx: Pick<EngineContext, 'dialect' | 'store' | 'portable'>,
  program: (target: WriterTarget) => Program<R>,
): Promise<R> {
  if (ctx.dialect !== 'sqlite') return ctx.portable.db.write(() => program(POSTGRES_WRITER));
  try {
    // A program's result is never a promise (it cannot await), which the store's callback type cannot see.
    return Promise.resolve(
      ctx.store.write(
        (sql) =>
          runSqliteProgram(sql, program({ dialect: 'sqlite', sql })) as R extends PromiseLike<unknown> ? never : R,
      ),
    );
  } catch (error) {
    return Promise.reject(error);
  }
}
