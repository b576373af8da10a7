import { execute, type PostgresClient } from '../postgres/connection.js';
import type { TransactionGuard } from '../transaction-guard.js';
import { type Program, type Step, statementFor } from './program.js';

/**
 * Runs a program on one PostgreSQL client, awaiting each statement. With a `guard`, every step of the
 * program runs marked as inside a write transaction, so a provider called from program code throws
 * `TransactionBoundaryError` as it does on SQLite. A failing statement is thrown into the program,
 * so its `try`/`finally` blocks run.
 */
export async function runPostgresProgram<R>(
  client: PostgresClient,
  program: Program<R>,
  guard?: TransactionGuard,
): Promise<R> {
  const advance = (move: () => IteratorResult<Step, R>): IteratorResult<Step, R> =>
    guard ? guard.runWriting(move) : move();
  let next = advance(() => program.next());
  while (!next.done) {
    const { kind, query } = next.value;
    let result: unknown;
    try {
      const { rows, rowCount } = await execute(client, statementFor(query, 'postgres'));
      result =
        kind === 'all'
          ? rows
          : kind === 'get'
            ? rows[0]
            : kind === 'arrays'
              ? (rows as Array<Record<string, unknown>>).map((row) => Object.values(row))
              : { changes: rowCount };
    } catch (error) {
      next = advance(() => program.throw(error));
      continue;
    }
    next = advance(() => program.next(result));
  }
  return next.value;
}
