import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import type { ApiTokenRow } from '../schema/tokens.js';

/** Stores a new token (its secret's hash only). */
export function insertApiToken(sql: SqlExecutor, row: ApiTokenRow): void {
  sql.run(queryBuilder.insertInto('api_tokens').values(row).compile());
}

/** A token by id, revoked or not (the caller decides what a revoked or expired token may do). */
export function findApiToken(sql: SqlExecutor, id: string): ApiTokenRow | undefined {
  return sql.get(queryBuilder.selectFrom('api_tokens').selectAll().where('id', '=', id).compile());
}

/** Every token, oldest first; revoked ones only with `includeRevoked`. */
export function listApiTokens(sql: SqlExecutor, options: { includeRevoked?: boolean } = {}): ApiTokenRow[] {
  let query = queryBuilder.selectFrom('api_tokens').selectAll();
  if (!options.includeRevoked) query = query.where('revoked_at', 'is', null);
  return sql.all(query.orderBy('created_at').orderBy('id').compile());
}

/** Marks a live token revoked at `now`. Returns false when it does not exist or was already revoked. */
export function revokeApiToken(sql: SqlExecutor, id: string, now: number): boolean {
  return (
    sql.run(
      queryBuilder
        .updateTable('api_tokens')
        .set({ revoked_at: now })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .compile(),
    ).changes > 0
  );
}
