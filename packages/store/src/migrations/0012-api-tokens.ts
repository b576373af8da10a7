import type { Migration } from './migration.js';
import { POSTGRES_API_TOKENS } from './postgres/tokens.js';

// Scoped API tokens for the HTTP surface. Only a SHA-256 of each token's secret is kept: the secret
// has 256 random bits, so a fast hash is enough (no password stretching needed), and a leaked
// database does not hand out working tokens. `agents` and `permissions` are JSON arrays; a token is
// never unscoped. Revocation is a timestamp, so `list` can still show what a revoked token could do.
export const apiTokens: Migration = {
  version: 12,
  name: 'api-tokens',
  statements: [
    `CREATE TABLE IF NOT EXISTS api_tokens (
      id TEXT PRIMARY KEY,
      name TEXT,
      agents TEXT NOT NULL,
      permissions TEXT NOT NULL,
      secret_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER
    )`,
  ],
  postgres: [...POSTGRES_API_TOKENS],
};
