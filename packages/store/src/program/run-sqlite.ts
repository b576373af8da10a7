import type { SqlExecutor } from '../internal/sql.js';
import { type Program, statementFor } from './program.js';

/**
 * Runs a program synchronously on SQLite, on the caller's executor (inside the caller's
 * transaction when there is one). A failing statement is thrown into the program, so its
 * `try`/`finally` blocks run, then out of this call.
 */
export function runSqliteProgram<R>(sql: SqlExecutor, program: Program<R>): R {
  let next = program.next();
  while (!next.done) {
    const step = next.value;
    let result: unknown;
    try {
      const statement = statementFor(step.query, 'sqlite');
      result =
        step.kind === 'all'
          ? sql.all(statement)
          : step.kind === 'get'
            ? sql.get(statement)
            : step.kind === 'arrays'
              ? sql.arrays(statement)
              : sql.run(statement);
    } catch (error) {
      next = program.throw(error);
      continue;
    }
    next = program.next(result);
  }
  return next.value;
}

/**
 * `yield* program` inside another program, except that on SQLite (a target holding the executor)
 * the inner program runs right here on that executor, in the same transaction, and its result is
 * returned. Same statements in the same order, same errors (a failing statement is thrown into
 * the inner program, then out through the outer one); what it saves is the outer generators'
 * delegation: every step of a `yield*` chain resumes each generator above it (a memory writer's
 * steps passed through five or six per statement).
 */
export function* runNested<R>(
  target: { readonly dialect: 'sqlite'; readonly sql: SqlExecutor } | { readonly dialect: 'postgres' },
  program: Program<R>,
): Program<R> {
  if (target.dialect === 'sqlite') return runSqliteProgram(target.sql, program);
  return yield* program;
}
