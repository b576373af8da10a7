import type { Generated, Selectable } from 'kysely';

// The migration runner's own bookkeeping (created by runner.ts before any migration, not by one).

/** `schema_migrations`: one row per applied migration, with the checksum of its text. */
export interface SchemaMigrationsTable {
  version: number;
  name: string;
  checksum: string;
  applied_at: number;
}
export type SchemaMigrationRow = Selectable<SchemaMigrationsTable>;

/** `schema_migrations_audit`: every attempt to apply a migration, applied or failed. */
export interface SchemaMigrationsAuditTable {
  id: Generated<number>;
  version: number;
  name: string;
  checksum: string;
  status: 'applied' | 'failed';
  error: string | null;
  duration_ms: number;
  started_at: number;
}
export type SchemaMigrationAuditRow = Selectable<SchemaMigrationsAuditTable>;
