import { type Program, runSqliteProgram } from '@memory/store/sql';
import type { QueueContext, WithDead } from '../context.js';
import { notifyDead } from './dead-letter.js';

// A program's value is never a promise (programs cannot await); the store's write type wants that said.
type Sync<R> = R extends PromiseLike<unknown> ? never : R;

/** Runs a queue program on SQLite in one write transaction (a savepoint inside a caller's write). */
export function writeOnSqlite<R>(ctx: QueueContext, program: Program<R>): R {
  return ctx.store.write<R>((sql) => runSqliteProgram(sql, program) as Sync<R>);
}

/** Runs a dead-lettering program on SQLite and tells the dead jobs' owners in the same transaction. */
export function writeDeadOnSqlite<R>(ctx: QueueContext, program: Program<WithDead<R>>): R {
  return ctx.store.write<R>((sql) => {
    const { value, died } = runSqliteProgram(sql, program);
    notifyDead(ctx, died);
    return value as Sync<R>;
  });
}

/** Runs a read-only queue program on SQLite. */
export function readOnSqlite<R>(ctx: QueueContext, program: Program<R>): R {
  return ctx.store.read((sql) => runSqliteProgram(sql, program));
}
