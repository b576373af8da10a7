import { isMemoryError, MemoryError } from '@memory/core';

// What a caller is told about a database failure, by SQLSTATE class (the first two characters).
// The server's own message can name tables, columns and stored values, so it stays in `cause`.
const FAILURE_CLASSES: Readonly<Record<string, string>> = {
  '08': 'the database connection failed',
  '23': 'a write violated a database constraint',
  '25': 'the transaction was in the wrong state',
  '28': 'the database refused the credentials',
  '3D': 'the database does not exist',
  '40': 'the transaction could not be serialized with concurrent ones (retries exhausted)',
  '42': 'the database rejected a statement (is the schema migrated?)',
  '53': 'the database server ran out of resources',
  '54': 'a value or statement exceeded a database limit',
  '57': 'the database server is shutting down or cancelled the statement',
  '58': 'the database server had an I/O error',
  XX: 'the database server reported an internal error',
};

/** The SQLSTATE of a `pg` error, if it has one. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** True for the failures a serializable transaction is retried on. */
export function isSerializationFailure(error: unknown): boolean {
  const state = sqlState(error);
  return state === '40001' || state === '40P01';
}

/**
 * A {@link MemoryError} for a PostgreSQL failure: `STORAGE_ERROR` naming the class of failure, with
 * `details.sqlState`; the driver's error is kept only as `cause`.
 */
export function wrapPostgresError(
  error: unknown,
  code: 'STORAGE_ERROR' | 'MIGRATION_FAILED' = 'STORAGE_ERROR',
): MemoryError {
  if (isMemoryError(error)) return error;
  const state = sqlState(error);
  const what = (state && FAILURE_CLASSES[state.slice(0, 2)]) ?? connectionFailure(error);
  return new MemoryError(code, `database error: ${what}`, {
    cause: error,
    ...(state ? { details: { sqlState: state } } : {}),
  });
}

function connectionFailure(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'ETIMEDOUT' || code === 'ECONNRESET')
    return `could not reach the database server (${code})`;
  return 'the database operation failed';
}
