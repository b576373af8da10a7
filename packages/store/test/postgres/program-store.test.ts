import { PGlite } from '@electric-sql/pglite';
import { isMemoryError, TransactionBoundaryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration } from '../../src/migrations/migration.js';
import { openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import { all, get, type Program, perDialect, run } from '../../src/program/program.js';
import { runSqliteProgram } from '../../src/program/run-sqlite.js';
import { type Database, queryBuilder, raw, sqliteDatabase } from '../../src/sql.js';
import { createTestStore } from '../../src/testing.js';

// One in-process PostgreSQL (PGlite) for the file: creating one costs seconds.
let pglite: PGlite;
beforeAll(async () => {
  pglite = await PGlite.create();
}, 120_000);
afterAll(async () => {
  await pglite.close();
});

const notesMigration: Migration = {
  version: 1,
  name: 'notes',
  statements: [
    'CREATE TABLE IF NOT EXISTS program_notes (id TEXT PRIMARY KEY, agent_id TEXT NOT NULL, body TEXT NOT NULL)',
  ],
  postgres: [
    'CREATE TABLE IF NOT EXISTS program_notes (id text PRIMARY KEY, agent_id text NOT NULL, body text NOT NULL)',
  ],
};
const sqliteOnly: Migration = {
  version: 2,
  name: 'sqlite only',
  statements: ['CREATE TABLE IF NOT EXISTS only_here (x)'],
};

// A program written once: a typed builder insert, a per-dialect statement, a count.
function* addNotes(agentId: string, bodies: readonly string[]): Program<number> {
  for (const [i, body] of bodies.entries()) {
    yield* run(
      perDialect(
        raw('INSERT INTO program_notes (id, agent_id, body) VALUES (?, ?, ?)', `${agentId}-${i}`, agentId, body),
        raw('INSERT INTO program_notes (id, agent_id, body) VALUES ($1, $2, $3)', `${agentId}-${i}`, agentId, body),
      ),
    );
  }
  const row = yield* get<{ n: number }>(
    perDialect(
      raw('SELECT count(*) AS n FROM program_notes WHERE agent_id = ?', agentId),
      raw('SELECT count(*) AS n FROM program_notes WHERE agent_id = $1', agentId),
    ),
  );
  return row?.n ?? -1;
}

function* listNotes(agentId: string): Program<string[]> {
  const rows = yield* all<{ body: string }>(
    perDialect(
      raw('SELECT body FROM program_notes WHERE agent_id = ? ORDER BY id', agentId),
      raw('SELECT body FROM program_notes WHERE agent_id = $1 ORDER BY id', agentId),
    ),
  );
  return rows.map((r) => r.body);
}

describe('programs on PostgreSQL (PGlite)', () => {
  let store: PostgresStore;
  beforeAll(async () => {
    store = await openPostgresStore({ target: { pglite }, migrations: [notesMigration, sqliteOnly] });
  }, 180_000);
  afterAll(async () => {
    await store.close();
  });

  it('applies PostgreSQL forms only, and records them like the SQLite runner', async () => {
    expect(store.migrations.map((m) => [m.version, m.status])).toEqual([[1, 'applied']]);
    const again = await openPostgresStore({ target: { pglite }, migrations: [notesMigration, sqliteOnly] });
    expect(again.migrations.map((m) => m.status)).toEqual(['already-applied']);
    await again.close();
    const tables = await pglite.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual([
      'program_notes',
      'schema_migrations',
      'schema_migrations_audit',
    ]);
  });

  it('refuses to open when an applied migration was edited', async () => {
    const edited = { ...notesMigration, postgres: [...(notesMigration.postgres ?? []), 'SELECT 1'] };
    const error = await openPostgresStore({ target: { pglite }, migrations: [edited] }).catch((e: unknown) => e);
    expect(isMemoryError(error, 'MIGRATION_FAILED')).toBe(true);
    expect((error as Error).message).toContain('checksum mismatch');
  });

  it('a failing migration rolls back alone, is audited, and stops the run', async () => {
    const good: Migration = {
      version: 10,
      name: 'good',
      statements: [],
      postgres: ['CREATE TABLE IF NOT EXISTS good_t (x int)'],
    };
    const bad: Migration = {
      version: 11,
      name: 'bad',
      statements: [],
      postgres: ['CREATE TABLE IF NOT EXISTS half_t (x int)', 'SELECT no_such_function()'],
    };
    const later: Migration = { version: 12, name: 'later', statements: [], postgres: ['CREATE TABLE later_t (x int)'] };
    const error = await openPostgresStore({ target: { pglite }, migrations: [notesMigration, good, bad, later] }).catch(
      (e: unknown) => e,
    );
    expect(isMemoryError(error, 'MIGRATION_FAILED')).toBe(true);
    const names = (
      await pglite.query<{ t: string | null }>(
        "SELECT to_regclass('good_t')::text AS t, to_regclass('half_t')::text AS h",
      )
    ).rows[0];
    expect(names).toEqual({ t: 'good_t', h: null });
    const audit = await pglite.query<{ version: number; status: string }>(
      'SELECT version, status FROM schema_migrations_audit WHERE version >= 10 ORDER BY id',
    );
    expect(audit.rows).toEqual([
      { version: 10, status: 'applied' },
      { version: 11, status: 'failed' },
    ]);
  });

  it('runs one program the same on SQLite and PostgreSQL', async () => {
    const sqlite = await createTestStore();
    sqlite.write((sql) => runSqliteProgram(sql, run(raw(notesMigration.statements[0] ?? ''))));
    const onSqlite = sqlite.write((sql) => runSqliteProgram(sql, addNotes('a', ['one', 'two'])));
    const onPostgres = await store.write(() => addNotes('a', ['one', 'two']));
    expect(onPostgres).toBe(onSqlite);
    expect(onPostgres).toBe(2);
    expect(await store.read(() => listNotes('a'))).toEqual(sqlite.read((sql) => runSqliteProgram(sql, listNotes('a'))));
    sqlite.close();
  });

  it('compiles builder queries for PostgreSQL', async () => {
    const builder = queryBuilder.selectFrom('schema_migrations').select(['version', 'name']).where('version', '=', 1);
    const rows = await store.read(() => all(builder));
    expect(rows).toEqual([{ version: 1, name: 'notes' }]);
  });

  it('rolls back a write whose program throws, and the program sees the statement error', async () => {
    let seen: unknown;
    function* failing(): Program<void> {
      yield* run(
        perDialect(
          raw("INSERT INTO program_notes VALUES ('x', 'b', 'kept?')"),
          raw("INSERT INTO program_notes VALUES ('x', 'b', 'kept?')"),
        ),
      );
      try {
        yield* run(perDialect(raw('SELECT 1'), raw('SELECT no_such_column FROM program_notes')));
      } catch (error) {
        seen = error;
        throw error;
      }
    }
    const error = await store.write(() => failing()).catch((e: unknown) => e);
    expect(isMemoryError(error, 'STORAGE_ERROR')).toBe(true);
    expect((error as { details: { sqlState?: string } }).details.sqlState).toBe('42703');
    expect((seen as { code?: string }).code).toBe('42703');
    expect(await store.read(() => listNotes('b'))).toEqual([]);
  });

  it('refuses a provider call made from inside a write program, and rolls back', async () => {
    const embedder = store.guard.embedder({ model: 'm', dimensions: 2, embed: async () => [new Float32Array(2)] });
    function* callsProvider(): Program<void> {
      yield* run(
        perDialect(
          raw("INSERT INTO program_notes VALUES ('p', 'c', 'x')"),
          raw("INSERT INTO program_notes VALUES ('p', 'c', 'x')"),
        ),
      );
      void embedder.embed(['inside']);
    }
    const error = await store.write(() => callsProvider()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionBoundaryError);
    expect(await store.read(() => listNotes('c'))).toEqual([]);
    // Outside a transaction the same provider works.
    await expect(embedder.embed(['outside'])).resolves.toHaveLength(1);
  });

  it('reads run read-only: a write inside read() fails and changes nothing', async () => {
    const error = await store
      .read(() => run(perDialect(raw('SELECT 1'), raw("INSERT INTO program_notes VALUES ('r', 'd', 'x')"))))
      .catch((e: unknown) => e);
    expect(isMemoryError(error, 'STORAGE_ERROR')).toBe(true);
    expect((error as { details: { sqlState?: string } }).details.sqlState).toBe('25006');
    expect(await store.read(() => listNotes('d'))).toEqual([]);
  });

  it('refuses a raw SQLite statement on PostgreSQL', async () => {
    const error = await store.read(() => get(raw('SELECT 1 AS one'))).catch((e: unknown) => e);
    expect((error as Error).message).toContain('no PostgreSQL form yet');
  });

  it('returns 64-bit integers as numbers, as on SQLite', async () => {
    const row = await store.read(() =>
      get<{ n: number; big: number }>(
        perDialect(raw('SELECT 1'), raw('SELECT count(*) AS n, 1700000000000::bigint AS big')),
      ),
    );
    expect(row).toEqual({ n: 1, big: 1_700_000_000_000 });
  });
});

describe('opening PostgreSQL', () => {
  it('names an unreachable server without its driver message', async () => {
    const error = await openPostgresStore({
      target: { connectionString: 'postgres://nobody@127.0.0.1:1/none', maxConnections: 1 },
    }).catch((e: unknown) => e);
    expect(isMemoryError(error, 'STORAGE_ERROR')).toBe(true);
    expect((error as Error).message).toMatch(/could not reach the database server \(ECONNREFUSED\)/);
  });

  it('refuses a closed store and an empty connection string', async () => {
    await expect(openPostgresStore({ target: { connectionString: '' } })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    const store = await openPostgresStore({ target: { pglite }, migrations: [] });
    await store.close();
    await expect(store.read(() => get(perDialect(raw('SELECT 1'), raw('SELECT 1'))))).rejects.toMatchObject({
      code: 'ENGINE_CLOSED',
    });
  });
});

describe('Database: one interface over both dialects', () => {
  const setups: Array<[string, () => Promise<{ db: Database; close: () => Promise<void> }>]> = [
    [
      'sqlite',
      async () => {
        const store = await createTestStore();
        const db = sqliteDatabase(store);
        await db.write(() => run(raw(notesMigration.statements[0] ?? '')));
        return { db, close: async () => store.close() };
      },
    ],
    [
      'postgres',
      async () => {
        const store = await openPostgresStore({ target: { pglite }, migrations: [notesMigration] });
        await store.write(() => run(perDialect(raw('SELECT 1'), raw('TRUNCATE program_notes'))));
        return { db: store, close: () => store.close() };
      },
    ],
  ];

  it.each(setups)('%s: writes commit, a throwing program rolls back, reads see the result', async (_, setUp) => {
    const { db, close } = await setUp();
    expect(await db.write(() => addNotes('z', ['first', 'second']))).toBe(2);
    function* halfThenFail(): Program<void> {
      yield* addNotes('y', ['lost']);
      throw new Error('stop');
    }
    await expect(db.write(() => halfThenFail())).rejects.toThrow();
    expect(await db.read(() => listNotes('z'))).toEqual(['first', 'second']);
    expect(await db.read(() => listNotes('y'))).toEqual([]);
    await close();
  });
});
