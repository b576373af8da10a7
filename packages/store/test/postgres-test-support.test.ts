import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PostgresTestDatabase,
  postgresTestDatabase,
  postgresTestServer,
  postgresTestSource,
  requirePostgresIfAsked,
  withDatabase,
} from './support/postgres.js';

const server = await postgresTestServer();

describe('postgres test support: where the server comes from', () => {
  it('an explicit MEMORY_TEST_POSTGRES_URL wins over the global setup', () => {
    expect(
      postgresTestSource({ MEMORY_TEST_POSTGRES_URL: 'postgresql://x@h/db', MEMORY_TEST_POSTGRES_STATE: '/s.json' }),
    ).toEqual({ kind: 'url', connectionString: 'postgresql://x@h/db' });
    expect(postgresTestSource({ MEMORY_TEST_POSTGRES_STATE: '/s.json' })).toEqual({
      kind: 'state-file',
      path: '/s.json',
    });
  });

  it('without a server it says why: the setup reason, or that no setup ran', () => {
    expect(postgresTestSource({ MEMORY_TEST_POSTGRES_UNAVAILABLE: 'no binaries' })).toEqual({
      kind: 'unavailable',
      reason: 'no binaries',
    });
    const none = postgresTestSource({});
    expect(none.kind === 'unavailable' && none.reason).toMatch(/MEMORY_TEST_POSTGRES_URL/);
  });

  it('MEMORY_REQUIRE_POSTGRES=1 turns "unavailable" into an error naming the reason; otherwise the caller skips', () => {
    const missing = { available: false, reason: 'no binaries' } as const;
    expect(() => requirePostgresIfAsked(missing, { MEMORY_REQUIRE_POSTGRES: '1' })).toThrow(
      /MEMORY_REQUIRE_POSTGRES=1 .*no binaries/,
    );
    expect(requirePostgresIfAsked(missing, {})).toBe(missing);
    expect(requirePostgresIfAsked(missing, { MEMORY_REQUIRE_POSTGRES: '0' })).toBe(missing);
    const up = { available: true, connectionString: 'postgresql://x@h/db' } as const;
    expect(requirePostgresIfAsked(up, { MEMORY_REQUIRE_POSTGRES: '1' })).toBe(up);
  });

  it('follows the state file the global setup writes: starting, then ready or failed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-state-'));
    const path = join(dir, 'state.json');
    try {
      writeFileSync(path, JSON.stringify({ state: 'starting' }));
      const env = { MEMORY_TEST_POSTGRES_STATE: path };
      const waiting = postgresTestServer({ env, timeoutMs: 10_000 });
      setTimeout(
        () => writeFileSync(path, JSON.stringify({ state: 'ready', connectionString: 'postgresql://a@b/c' })),
        100,
      );
      expect(await waiting).toEqual({ available: true, connectionString: 'postgresql://a@b/c' });

      writeFileSync(path, JSON.stringify({ state: 'failed', reason: 'initdb: boom' }));
      expect(await postgresTestServer({ env })).toEqual({
        available: false,
        reason: 'the test server failed: initdb: boom',
      });
      await expect(postgresTestServer({ env: { ...env, MEMORY_REQUIRE_POSTGRES: '1' } })).rejects.toThrow(
        /initdb: boom/,
      );

      writeFileSync(path, JSON.stringify({ state: 'starting' }));
      const late = await postgresTestServer({ env, timeoutMs: 100 });
      expect(late).toEqual({ available: false, reason: 'the test server was not up after 100 ms' });
    } finally {
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });

  it('points a connection string at another database, keeping credentials and port', () => {
    expect(withDatabase('postgresql://memory:pw@127.0.0.1:5433/postgres', 't_1')).toBe(
      'postgresql://memory:pw@127.0.0.1:5433/t_1',
    );
  });
});

describe.skipIf(!server.available)(
  `postgres test support on the run's server${server.available ? '' : ` (skipped: ${server.reason})`}`,
  () => {
    let first: PostgresTestDatabase;
    let second: PostgresTestDatabase;
    beforeAll(async () => {
      [first, second] = await Promise.all([postgresTestDatabase(), postgresTestDatabase()]);
    });
    afterAll(async () => {
      await Promise.all([first?.drop(), second?.drop()]);
    });

    const query = async (connectionString: string, text: string): Promise<pg.QueryResult> => {
      const client = new pg.Client({ connectionString });
      await client.connect();
      try {
        return await client.query(text);
      } finally {
        await client.end();
      }
    };

    it('runs a query on a real PostgreSQL server', async () => {
      const { rows } = await query(first.connectionString, 'select version() as version, current_database() as db');
      expect(rows[0].version).toMatch(/^PostgreSQL \d+/);
      expect(rows[0].db).toBe(first.name);
      expect(first.name).toMatch(/^t_[0-9a-f]{16}$/);
    });

    it('gives each caller its own database: tables in one are not in the other', async () => {
      expect(first.name).not.toBe(second.name);
      await query(first.connectionString, 'create table only_here (id int)');
      const seen = (cs: string) =>
        query(cs, "select count(*)::int as n from information_schema.tables where table_name = 'only_here'");
      expect((await seen(first.connectionString)).rows[0].n).toBe(1);
      expect((await seen(second.connectionString)).rows[0].n).toBe(0);
    });

    it('drop() removes the database even while a session is still open on it', async () => {
      const third = await postgresTestDatabase();
      const open = new pg.Client({ connectionString: third.connectionString });
      await open.connect();
      open.on('error', () => {}); // the forced drop terminates this session
      await third.drop();
      await third.drop(); // idempotent
      await open.end().catch(() => {});
      const { rows } = await query(
        first.connectionString,
        `select count(*)::int as n from pg_database where datname = '${third.name}'`,
      );
      expect(rows[0].n).toBe(0);
    });
  },
);
