import type { Selectable } from 'kysely';

/** `api_tokens`: scoped tokens for the HTTP surface; the secret itself is never stored. */
export interface ApiTokensTable {
  id: string;
  name: string | null;
  /** JSON array of the agent ids the token may act for (at least one). */
  agents: string;
  /** JSON array of permissions: `read`, `write`, `admin`, `analytics`. */
  permissions: string;
  /** Hex SHA-256 of the token's secret part. */
  secret_hash: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}
export type ApiTokenRow = Selectable<ApiTokensTable>;
