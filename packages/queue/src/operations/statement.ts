import { type DialectQuery, perDialect, raw } from '@memory/store/sql';

// The queue issues a small, fixed set of statement texts: each is numbered once.
const numberedCache = new Map<string, string>();

/** SQLite's `?` placeholders as PostgreSQL's `$1..$n`, in order (no queue statement has a `?` in a literal). */
function numbered(sql: string): string {
  let text = numberedCache.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (numberedCache.size < 1024) numberedCache.set(sql, text);
  }
  return text;
}

/** One statement text that both dialects accept, written with `?` placeholders. */
export function same(sql: string, ...parameters: unknown[]): DialectQuery {
  return perDialect(raw(sql, ...parameters), raw(numbered(sql), ...parameters));
}

/**
 * A statement whose text differs per dialect, both written with `?` placeholders and taking the
 * same parameters in the same order.
 */
export function dual(sqlite: string, postgres: string, ...parameters: unknown[]): DialectQuery {
  return perDialect(raw(sqlite, ...parameters), raw(numbered(postgres), ...parameters));
}

/** A set of job ids bound as one JSON parameter (no limit on how many), per dialect. */
export const IN_IDS = {
  sqlite: 'id IN (SELECT value FROM json_each(?))',
  postgres: 'id IN (SELECT json_array_elements_text(?::json))',
} as const;

/** Lease fields cleared whenever a job stops being leased (a reaped job must not look leased). */
export const CLEAR_LEASE = 'lease_token = NULL, lease_expires_at = NULL, leased_at = NULL, leased_by = NULL';

/** A leased run handed back gives its attempt back (never below zero). */
export const GIVE_ATTEMPT_BACK = 'attempts = CASE WHEN attempts > 0 THEN attempts - 1 ELSE 0 END';
