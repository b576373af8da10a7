// The PostgreSQL form of the HTTP surface's API tokens (migration 12): the same columns, times as
// epoch milliseconds (bigint), `agents` and `permissions` as JSON text, so rows read alike on both.

/** Migration 12: scoped API tokens (only a hash of each secret is kept). */
export const POSTGRES_API_TOKENS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS api_tokens (
    id text PRIMARY KEY,
    name text,
    agents text NOT NULL,
    permissions text NOT NULL,
    secret_hash text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint,
    revoked_at bigint
  )`,
];
