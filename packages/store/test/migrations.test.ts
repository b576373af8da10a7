import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, isMemoryError } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { openStore } from '../src/index.js';
import { MIGRATIONS } from '../src/migrations/index.js';
import type { Migration } from '../src/migrations/migration.js';
import { migrationChecksum, runMigrations } from '../src/migrations/runner.js';

const clock = createManualClock(Date.UTC(2026, 0, 1));

function schemaDump(db: Database.Database): string {
  const rows = db
    .prepare(
      `SELECT type, name, sql FROM sqlite_master
       WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
       ORDER BY type, name`,
    )
    .all() as Array<{ type: string; name: string; sql: string }>;
  return `${rows.map((r) => `-- ${r.type} ${r.name}\n${r.sql.replace(/[ \t]+$/gm, '')};`).join('\n\n')}\n`;
}

describe('migrations', () => {
  it('applies the baseline to a fresh database and records checksum and audit rows', () => {
    const db = new Database(':memory:');
    const results = runMigrations(db, MIGRATIONS, clock);
    expect(results.map((r) => r.status)).toEqual(MIGRATIONS.map(() => 'applied'));
    const recorded = db.prepare('SELECT version, name, checksum, applied_at FROM schema_migrations').all();
    expect(recorded).toEqual(
      MIGRATIONS.map((m) => ({
        version: m.version,
        name: m.name,
        checksum: migrationChecksum(m),
        applied_at: clock.now(),
      })),
    );
    const audit = db.prepare('SELECT version, status, duration_ms FROM schema_migrations_audit').all() as Array<{
      duration_ms: number;
      status: string;
    }>;
    expect(audit).toHaveLength(MIGRATIONS.length);
    expect(audit.every((a) => a.status === 'applied' && a.duration_ms >= 0)).toBe(true);
  });

  it('is a no-op when run again', () => {
    const db = new Database(':memory:');
    runMigrations(db, MIGRATIONS, clock);
    const before = schemaDump(db);
    const again = runMigrations(db, MIGRATIONS, clock);
    expect(again.map((r) => r.status)).toEqual(MIGRATIONS.map(() => 'already-applied'));
    expect(schemaDump(db)).toBe(before);
  });

  it('matches the committed schema snapshot (schema drift check)', async () => {
    const db = new Database(':memory:');
    runMigrations(db, MIGRATIONS, clock);
    await expect(schemaDump(db)).toMatchFileSnapshot('./__snapshots__/schema.sql');
  });

  it('rolls back a failing migration alone, keeps earlier ones, and reports the rest as not run', () => {
    const db = new Database(':memory:');
    const good: Migration = { version: 1, name: 'good', statements: ['CREATE TABLE IF NOT EXISTS a (x INTEGER)'] };
    const bad: Migration = {
      version: 2,
      name: 'bad',
      statements: ['CREATE TABLE IF NOT EXISTS b (x INTEGER)', 'INSERT INTO missing VALUES (1)'],
    };
    const later: Migration = { version: 3, name: 'later', statements: ['CREATE TABLE IF NOT EXISTS c (x INTEGER)'] };
    const results = runMigrations(db, [good, bad, later], clock);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['good', 'applied'],
      ['bad', 'failed'],
      ['later', 'not-run'],
    ]);
    expect(results[1]?.error).toMatch(/missing/);
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{ name: string }>
    ).map((r) => r.name);
    expect(tables).toContain('a');
    expect(tables).not.toContain('b');
    expect(tables).not.toContain('c');
    expect(db.prepare('SELECT version, status FROM schema_migrations_audit ORDER BY id').all()).toEqual([
      { version: 1, status: 'applied' },
      { version: 2, status: 'failed' },
    ]);
  });

  it('reports an edited, already-applied migration as a checksum mismatch and refuses to open', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-mig-'));
    const path = join(dir, 'm.db');
    const v1: Migration = { version: 1, name: 'one', statements: ['CREATE TABLE IF NOT EXISTS t (x INTEGER)'] };
    const store = await openStore({ path, clock, migrations: [v1] });
    store.close();
    const edited: Migration = { ...v1, statements: ['CREATE TABLE IF NOT EXISTS t (x INTEGER, y TEXT)'] };
    const db = new Database(path);
    expect(runMigrations(db, [edited], clock)[0]?.status).toBe('checksum-mismatch');
    db.close();
    await expect(openStore({ path, clock, migrations: [edited] })).rejects.toSatisfy((e) =>
      isMemoryError(e, 'MIGRATION_FAILED'),
    );
  });

  it('lets two connections open one file concurrently without applying twice', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-mig-'));
    const path = join(dir, 'm.db');
    const [a, b] = await Promise.all([openStore({ path, clock }), openStore({ path, clock })]);
    const applied = [...a.migrations, ...b.migrations].filter((m) => m.status === 'applied');
    expect(applied).toHaveLength(MIGRATIONS.length);
    a.close();
    b.close();
  });
});
