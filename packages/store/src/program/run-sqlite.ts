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
