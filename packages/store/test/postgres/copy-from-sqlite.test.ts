import { PGlite } from '@electric-sql/pglite';
import { isMemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration } from '../../src/migrations/migration.js';
import { openStore, type Store } from '../../src/open-store.js';
import { copySqliteToPostgres, openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import { all, postgresOnly, run } from '../../src/program/program.js';
import { raw } from '../../src/sql.js';

// A parent with a serial key, a child with a foreign key and a blob, and a table keyed without rowid:
// the shapes the real schema has, in both dialects.
const schema: Migration = {
  version: 1,
  name: 'copy shapes',
  statements: [
    'CREATE TABLE IF NOT EXISTS zz_parent (seq INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL)',
    `CREATE TABLE IF NOT EXISTS aa_child (id TEXT PRIMARY KEY, parent_seq INTEGER NOT NULL REFERENCES zz_parent (seq),
      body BLOB, created_at INTEGER NOT NULL)`,
    'CREATE TABLE IF NOT EXISTS pairs (a TEXT NOT NULL, b INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (a, b)) WITHOUT ROWID',
    'CREATE TABLE IF NOT EXISTS only_on_sqlite (x TEXT)',
  ],
  postgres: [
    'CREATE TABLE IF NOT EXISTS zz_parent (seq bigserial PRIMARY KEY, name text NOT NULL, score double precision)',
    `CREATE TABLE IF NOT EXISTS aa_child (id text PRIMARY KEY, parent_seq bigint NOT NULL REFERENCES zz_parent (seq),
      body bytea, created_at bigint NOT NULL)`,
    'CREATE TABLE IF NOT EXISTS pairs (a text NOT NULL, b bigint NOT NULL, n bigint NOT NULL, PRIMARY KEY (a, b))',
  ],
};

let pglite: PGlite;
let sqlite: Store;
beforeAll(async () => {
  pglite = await PGlite.create();
  sqlite = await openStore({ path: ':memory:', migrations: [schema] });
  sqlite.write((sql) => {
    for (let i = 1; i <= 1234; i++) {
      sql.run(
        raw('INSERT INTO zz_parent (seq, name, score) VALUES (?, ?, ?)', i * 2, `p${i}`, i % 7 === 0 ? null : i / 3),
      );
      sql.run(
        raw(
          'INSERT INTO aa_child (id, parent_seq, body, created_at) VALUES (?, ?, ?, ?)',
          `c${i}`,
          i * 2,
          i % 5 === 0 ? null : Buffer.from([i & 255, (i >> 8) & 255, 0, 255]),
          1_700_000_000_000 + i,
        ),
      );
    }
    for (let i = 0; i < 1100; i++) sql.run(raw('INSERT INTO pairs (a, b, n) VALUES (?, ?, ?)', `k${i % 3}`, i, i * i));
    sql.run(raw("INSERT INTO only_on_sqlite (x) VALUES ('left behind')"));
  });
}, 120_000);
afterAll(async () => {
  sqlite?.close();
  await pglite?.close();
});

describe('copySqliteToPostgres', () => {
  let target: PostgresStore;
  beforeAll(async () => {
    target = await openPostgresStore({ target: { pglite }, migrations: [schema], vectorExtension: 'off' });
  }, 180_000);

  it('copies every row, parents first, verifies counts and lists what has no PostgreSQL form', async () => {
    const report = await copySqliteToPostgres({ from: sqlite, to: target });
    expect(report.verified).toBe(true);
    expect(report.tables.map((t) => [t.table, t.sqliteRows, t.postgresRows, t.status])).toEqual([
      ['zz_parent', 1234, 1234, 'copied'],
      ['aa_child', 1234, 1234, 'copied'],
      ['pairs', 1100, 1100, 'copied'],
    ]);
    expect(report.notCopied).toEqual([{ table: 'only_on_sqlite', rows: 1 }]);
    const sqliteRows = sqlite.read((sql) =>
      sql.all(raw('SELECT id, parent_seq, body, created_at FROM aa_child ORDER BY id')),
    );
    const postgresRows = await target.read(() =>
      all(postgresOnly(raw('SELECT id, parent_seq, body, created_at FROM aa_child ORDER BY id COLLATE "C"'))),
    );
    expect(postgresRows).toEqual(sqliteRows);
    const parents = await target.read(() =>
      all(postgresOnly(raw('SELECT seq, name, score FROM zz_parent ORDER BY seq'))),
    );
    expect(parents).toEqual(sqlite.read((sql) => sql.all(raw('SELECT seq, name, score FROM zz_parent ORDER BY seq'))));
  });

  it('moves serial counters past the copied ids', async () => {
    const [row] = await target.write(() =>
      all<{ seq: number }>(postgresOnly(raw("INSERT INTO zz_parent (name) VALUES ('new') RETURNING seq"))),
    );
    expect(row?.seq).toBe(2469);
  });

  it('refuses a target that already holds rows, and changes nothing', async () => {
    const error = await copySqliteToPostgres({ from: sqlite, to: target }).catch((e: unknown) => e);
    expect(isMemoryError(error, 'CONFLICT')).toBe(true);
    const [count] = await target.read(() => all<{ n: number }>(postgresOnly(raw('SELECT count(*) AS n FROM pairs'))));
    expect(count?.n).toBe(1100);
  });

  it('refuses a SQLite table with a column PostgreSQL lacks', async () => {
    const wider = await openStore({
      path: ':memory:',
      migrations: [{ ...schema, statements: [...schema.statements, 'ALTER TABLE pairs ADD COLUMN extra TEXT'] }],
    });
    await target.write(() => run(postgresOnly(raw('TRUNCATE aa_child, zz_parent, pairs'))));
    const error = await copySqliteToPostgres({ from: wider, to: target }).catch((e: unknown) => e);
    expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toContain('pairs');
    wider.close();
  });
});
