import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ApiTokenRow } from '../schema/tokens.js';

/** Stores a new token (its secret's hash only). */
export function insertApiToken(sql: SqlExecutor, row: ApiTokenRow): void {
  runSqliteProgram(sql, insertApiTokenProgram(row));
}

/** {@link insertApiToken} as a program (both dialects). */
export function* insertApiTokenProgram(row: ApiTokenRow): Program<void> {
  yield* run(queryBuilder.insertInto('api_tokens').values(row));
}

/** A token by id, revoked or not (the caller decides what a revoked or expired token may do). */
export function findApiToken(sql: SqlExecutor, id: string): ApiTokenRow | undefined {
  return runSqliteProgram(sql, findApiTokenProgram(id));
}

/** {@link findApiToken} as a program (both dialects). */
export function* findApiTokenProgram(id: string): Program<ApiTokenRow | undefined> {
  return yield* get<ApiTokenRow>(queryBuilder.selectFrom('api_tokens').selectAll().where('id', '=', id));
}

/** Every token, oldest first; revoked ones only with `includeRevoked`. */
export function listApiTokens(sql: SqlExecutor, options: { includeRevoked?: boolean } = {}): ApiTokenRow[] {
  return runSqliteProgram(sql, listApiTokensProgram(options));
}

/** {@link listApiTokens} as a program (both dialects). */
export function* listApiTokensProgram(options: { includeRevoked?: boolean } = {}): Program<ApiTokenRow[]> {
  let query = queryBuilder.selectFrom('api_tokens').selectAll();
  if (!options.includeRevoked) query = query.where('revoked_at', 'is', null);
  return yield* all<ApiTokenRow>(query.orderBy('created_at').orderBy('id'));
}

/** Marks a live token revoked at `now`. Returns false when it does not exist or was already revoked. */
export function revokeApiToken(sql: SqlExecutor, id: string, now: number): boolean {
  return runSqliteProgram(sql, revokeApiTokenProgram(id, now));
}

/** {@link revokeApiToken} as a program (both dialects). */
export function* revokeApiTokenProgram(id: string, now: number): Program<boolean> {
  const { changes } = yield* run(
    queryBuilder
      .updateTable('api_tokens')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null),
  );
  return changes > 0;
}
