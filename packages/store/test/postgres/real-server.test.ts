import { isMemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration } from '../../src/migrations/migration.js';
import { openPostgresStore, type PostgresStore, searchPostgresVectors } from '../../src/postgres.js';
import { get, type Program, postgresOnly, run } from '../../src/program/program.js';
import { raw } from '../../src/sql.js';
import { type PostgresTestDatabase, postgresTestDatabase, postgresTestServer } from '../support/postgres.js';

const server = await postgresTestServer();

const counters: Migration = {
  version: 1,
  name: 'counters and embeddings',
  statements: [],
  postgres: [
    'CREATE TABLE IF NOT EXISTS counters (name text PRIMARY KEY, n bigint NOT NULL)',
    "INSERT INTO counters (name, n) VALUES ('hits', 0) ON CONFLICT DO NOTHING",
    `CREATE TABLE IF NOT EXISTS embeddings (
      seq bigserial PRIMARY KEY, agent_id text NOT NULL, source_type text NOT NULL, source_id text NOT NULL,
      content_hash text NOT NULL, model text NOT NULL, dimensions integer NOT NULL CHECK (dimensions > 0),
      vector bytea NOT NULL, created_at bigint NOT NULL, UNIQUE (source_type, source_id, model))`,
  ],
};

// Read, then write what was read plus one: the lost-update shape SQLite's single writer makes safe.
function* increment(pauseSeconds = 0): Program<number> {
  const row = yield* get<{ n: number }>(postgresOnly(raw("SELECT n FROM counters WHERE name = 'hits'")));
  // A pause between the read and the write makes the transactions overlap for sure.
  if (pauseSeconds > 0) yield* get(postgresOnly(raw('SELECT pg_sleep($1)', pauseSeconds)));
  const next = (row?.n ?? 0) + 1;
  yield* run(postgresOnly(raw("UPDATE counters SET n = $1 WHERE name = 'hits'", next)));
  return next;
}

describe.skipIf(!server.available)(
  `on a real PostgreSQL server${server.available ? '' : ` (skipped: ${server.available === false ? server.reason : ''})`}`,
  () => {
    let database: PostgresTestDatabase;
    let store: PostgresStore;
    beforeAll(async () => {
      database = await postgresTestDatabase();
      store = await openPostgresStore({
        target: { connectionString: database.connectionString, maxConnections: 8 },
        migrations: [counters],
      });
    }, 180_000);
    afterAll(async () => {
      await store?.close();
      await database?.drop();
    });

    it('loses no update when concurrent writes conflict: SERIALIZABLE aborts one and the store runs it again', async () => {
      await store.write(() => run(postgresOnly(raw("UPDATE counters SET n = 0 WHERE name = 'hits'"))));
      const results = await Promise.all(Array.from({ length: 24 }, () => store.write(() => increment())));
      const final = await store.read(() =>
        get<{ n: number }>(postgresOnly(raw("SELECT n FROM counters WHERE name = 'hits'"))),
      );
      expect(final?.n).toBe(24);
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
    });

    it('reports a conflict it may not retry as STORAGE_ERROR with its SQLSTATE, and commits only the winners', async () => {
      const once = await openPostgresStore({
        target: { connectionString: database.connectionString, maxConnections: 8 },
        migrations: [counters],
        maxWriteAttempts: 1,
      });
      await once.write(() => run(postgresOnly(raw("UPDATE counters SET n = 0 WHERE name = 'hits'"))));
      const settled = await Promise.allSettled(Array.from({ length: 6 }, () => once.write(() => increment(0.05))));
      const failures = settled.filter((s) => s.status === 'rejected').map((s) => (s as PromiseRejectedResult).reason);
      const wins = settled.filter((s) => s.status === 'fulfilled').length;
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(isMemoryError(failure, 'STORAGE_ERROR')).toBe(true);
        expect(['40001', '40P01']).toContain((failure as { details: { sqlState?: string } }).details.sqlState);
      }
      const final = await once.read(() =>
        get<{ n: number }>(postgresOnly(raw("SELECT n FROM counters WHERE name = 'hits'"))),
      );
      expect(final?.n).toBe(wins);
      await once.close();
    });

    it('says why pgvector is not in use, and searches vectors with the exact scan', async () => {
      if (store.vector.available) {
        // A server with pgvector installed: the mirror path is covered by the PGlite tests.
        expect(store.vector.version).toMatch(/^\d+\.\d+/);
        return;
      }
      expect(store.vector.reason).toBe('the server does not offer the pgvector extension');
      const vectors = [Float32Array.from([1, 0, 0]), Float32Array.from([0.9, 0.1, 0]), Float32Array.from([0, 1, 0])];
      await store.write(function* () {
        for (const [i, v] of vectors.entries())
          yield* run(
            postgresOnly(
              raw(
                `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
                 VALUES ('a', 'memory', $1, $1, 'm', 3, $2, 0)`,
                `v${i}`,
                Buffer.from(v.buffer),
              ),
            ),
          );
      });
      const result = await store.read(() =>
        searchPostgresVectors({
          agentId: 'a',
          model: 'm',
          query: Float32Array.from([1, 0.05, 0]),
          k: 2,
          pgvector: false,
        }),
      );
      expect(result).toMatchObject({ completeness: 'exact', layout: 'scan', vectors: 3, searched: 3 });
      expect(result.hits.map((h) => h.memoryId)).toEqual(['v0', 'v1']);
    });
  },
);
