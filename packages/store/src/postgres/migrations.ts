import { performance } from 'node:perf_hooks';
import type { Clock } from '@memory/core';
import type { Migration } from '../migrations/migration.js';
import { type MigrationResult, migrationChecksum, skippedMigration } from '../migrations/runner.js';
import { execute, type PostgresClient } from './connection.js';

const BOOKKEEPING = [
  `CREATE TABLE IF NOT EXISTS schema_migrations (
    version integer PRIMARY KEY,
    name text NOT NULL,
    checksum text NOT NULL,
    applied_at bigint NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS schema_migrations_audit (
    id bigserial PRIMARY KEY,
    version integer NOT NULL,
    name text NOT NULL,
    checksum text NOT NULL,
    status text NOT NULL CHECK (status IN ('applied', 'failed')),
    error text,
    duration_ms double precision NOT NULL,
    started_at bigint NOT NULL
  )`,
];

// Any fixed 64-bit key: every process migrating the same database takes the same lock.
const MIGRATION_LOCK_KEY = 7_215_338_841_205_441n;

/** The PostgreSQL form of a migration as the checksum sees it. */
function postgresForm(migration: Migration): Migration | undefined {
  return migration.postgres
    ? { version: migration.version, name: migration.name, statements: migration.postgres }
    : undefined;
}

/**
 * Applies the pending PostgreSQL forms in order, with the SQLite runner's rules: one transaction for
 * the run (with an advisory lock, so two processes opening the same database apply each migration
 * once), a savepoint per migration (a failure rolls back that migration alone, keeps the ones before
 * it and stops the run), a checksum per migration (an edited migration is reported, not re-run) and
 * an audit row per attempt. Migrations without a PostgreSQL form are left out of the results.
 */
export async function runPostgresMigrations(
  client: PostgresClient,
  migrations: readonly Migration[],
  clock: Clock,
): Promise<MigrationResult[]> {
  const results: MigrationResult[] = [];
  const sql = (text: string, ...parameters: unknown[]) => execute(client, { sql: text, parameters });
  await sql('BEGIN');
  try {
    await sql('SELECT pg_advisory_xact_lock($1)', MIGRATION_LOCK_KEY.toString());
    for (const statement of BOOKKEEPING) await sql(statement);
    const applied = new Map<number, string>();
    const rows = (await sql('SELECT version, checksum FROM schema_migrations')).rows as Array<{
      version: number;
      checksum: string;
    }>;
    for (const row of rows) applied.set(row.version, row.checksum);
    let failed = false;
    for (const migration of migrations) {
      const form = postgresForm(migration);
      if (!form) continue;
      const checksum = migrationChecksum(form);
      const base = { version: migration.version, name: migration.name, checksum };
      const skipped = skippedMigration(base, failed, applied.get(migration.version));
      if (skipped) {
        results.push(skipped);
        continue;
      }
      const startedAt = clock.now();
      const t0 = performance.now();
      const savepoint = `migration_${migration.version}`;
      await sql(`SAVEPOINT ${savepoint}`);
      let error: string | undefined;
      try {
        for (const statement of form.statements) await sql(statement);
        await sql(
          'INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
          migration.version,
          migration.name,
          checksum,
          startedAt,
        );
        await sql(`RELEASE SAVEPOINT ${savepoint}`);
      } catch (caught) {
        await sql(`ROLLBACK TO SAVEPOINT ${savepoint}`);
        error = caught instanceof Error ? caught.message : String(caught);
        failed = true;
      }
      const durationMs = performance.now() - t0;
      await sql(
        `INSERT INTO schema_migrations_audit (version, name, checksum, status, error, duration_ms, started_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        migration.version,
        migration.name,
        checksum,
        error === undefined ? 'applied' : 'failed',
        error ?? null,
        durationMs,
        startedAt,
      );
      results.push(
        error === undefined
          ? { ...base, status: 'applied', durationMs }
          : { ...base, status: 'failed', durationMs, error },
      );
    }
    await sql('COMMIT');
  } catch (error) {
    await sql('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return results;
}
