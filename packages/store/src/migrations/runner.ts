import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { type Clock, type Logger, MemoryError } from '@memory/core';
import type { SqliteDatabase } from '../internal/sqlite.js';
import { registerTextFunctions } from '../internal/text-functions.js';
import type { Migration } from './migration.js';

/** What happened to one migration in a run. */
export type MigrationStatus =
  /** Applied in this run. */
  | 'applied'
  /** Was already applied with the same checksum. */
  | 'already-applied'
  /** Was applied before, but its text has changed since: the schema may have drifted. Not re-run. */
  | 'checksum-mismatch'
  /** Failed in this run; its savepoint was rolled back. */
  | 'failed'
  /** Not attempted because an earlier migration failed. */
  | 'not-run';

export interface MigrationResult {
  readonly version: number;
  readonly name: string;
  readonly status: MigrationStatus;
  readonly checksum: string;
  readonly durationMs: number;
  readonly error?: string;
}

/** The checksum of a migration's content: sha256 over its version, name and statements. */
export function migrationChecksum(migration: Migration): string {
  const hash = createHash('sha256');
  hash.update(`${migration.version}\n${migration.name}\n`);
  for (const statement of migration.statements) hash.update(`${statement}\n;\n`);
  return hash.digest('hex');
}

/**
 * The result of a migration the run does not apply: `not-run` after an earlier failure, or the
 * recorded state of one applied before (`already-applied`, or `checksum-mismatch` when its text
 * changed since). Undefined for a migration to apply now. Both dialects' runners decide this way.
 */
export function skippedMigration(
  base: Pick<MigrationResult, 'version' | 'name' | 'checksum'>,
  earlierFailed: boolean,
  appliedChecksum: string | undefined,
): MigrationResult | undefined {
  if (earlierFailed) return { ...base, status: 'not-run', durationMs: 0 };
  if (appliedChecksum === undefined) return undefined;
  return {
    ...base,
    status: appliedChecksum === base.checksum ? 'already-applied' : 'checksum-mismatch',
    durationMs: 0,
  };
}

const BOOKKEEPING = [
  `CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS schema_migrations_audit (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('applied', 'failed')),
    error TEXT,
    duration_ms REAL NOT NULL,
    started_at INTEGER NOT NULL
  )`,
];

/**
 * Applies pending migrations in order. The run holds one immediate transaction (so two processes
 * opening the same file cannot both apply a migration), and each migration runs in its own savepoint:
 * a failure rolls back that migration alone, keeps the ones before it, and stops the run.
 * Returns one result per migration instead of throwing.
 */
export function runMigrations(db: SqliteDatabase, migrations: readonly Migration[], clock: Clock): MigrationResult[] {
  const results: MigrationResult[] = [];
  // Migrations (and the triggers they create) call the text index's functions.
  registerTextFunctions(db);
  const run = db.transaction(() => {
    for (const statement of BOOKKEEPING) db.exec(statement);
    const applied = new Map<number, string>();
    for (const row of db.prepare('SELECT version, checksum FROM schema_migrations').all() as Array<{
      version: number;
      checksum: string;
    }>) {
      applied.set(row.version, row.checksum);
    }
    const audit = db.prepare(
      `INSERT INTO schema_migrations_audit (version, name, checksum, status, error, duration_ms, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    let failed = false;
    for (const migration of migrations) {
      const checksum = migrationChecksum(migration);
      const base = { version: migration.version, name: migration.name, checksum };
      const skipped = skippedMigration(base, failed, applied.get(migration.version));
      if (skipped) {
        results.push(skipped);
        continue;
      }
      const startedAt = clock.now();
      const t0 = performance.now();
      const savepoint = `migration_${migration.version}`;
      db.exec(`SAVEPOINT ${savepoint}`);
      try {
        for (const statement of migration.statements) db.exec(statement);
        db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)').run(
          migration.version,
          migration.name,
          checksum,
          startedAt,
        );
        db.exec(`RELEASE ${savepoint}`);
        const durationMs = performance.now() - t0;
        audit.run(migration.version, migration.name, checksum, 'applied', null, durationMs, startedAt);
        results.push({ ...base, status: 'applied', durationMs });
      } catch (error) {
        db.exec(`ROLLBACK TO ${savepoint}`);
        db.exec(`RELEASE ${savepoint}`);
        const durationMs = performance.now() - t0;
        const message = error instanceof Error ? error.message : String(error);
        audit.run(migration.version, migration.name, checksum, 'failed', message, durationMs, startedAt);
        results.push({ ...base, status: 'failed', durationMs, error: message });
        failed = true;
      }
    }
  });
  run.immediate();
  return results;
}

/**
 * The `MIGRATION_FAILED` error for a run with a failed or edited migration, or undefined. The
 * statement's error text stays in the audit table and in `cause`, not the message.
 */
export function migrationFailure(results: readonly MigrationResult[]): MemoryError | undefined {
  const failed = results.find((m) => m.status === 'failed' || m.status === 'checksum-mismatch');
  if (!failed) return undefined;
  return new MemoryError(
    'MIGRATION_FAILED',
    `migration ${failed.version} (${failed.name}) ${failed.status === 'failed' ? 'failed' : 'changed after it was applied (checksum mismatch)'}; see schema_migrations_audit`,
    {
      ...(failed.error === undefined ? {} : { cause: new Error(failed.error) }),
      details: { results: results.map((m) => `${m.version} ${m.name}: ${m.status}`) },
    },
  );
}

/** Logs each migration a run applied. */
export function logApplied(results: readonly MigrationResult[], logger: Logger): void {
  for (const m of results)
    if (m.status === 'applied')
      logger.info('migration applied', { version: m.version, name: m.name, durationMs: m.durationMs });
}
