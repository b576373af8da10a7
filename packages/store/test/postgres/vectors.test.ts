import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { isMemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Migration } from '../../src/migrations/migration.js';
import { openPostgresStore, type PostgresStore, searchPostgresVectors } from '../../src/postgres.js';
import { all, type Program, postgresOnly, run } from '../../src/program/program.js';
import { raw } from '../../src/sql.js';

// The embeddings table as SQLite has it (migration 0001), in its PostgreSQL form.
const embeddingsMigration: Migration = {
  version: 1,
  name: 'embeddings',
  statements: [],
  postgres: [
    `CREATE TABLE IF NOT EXISTS embeddings (
      seq bigserial PRIMARY KEY, agent_id text NOT NULL, source_type text NOT NULL, source_id text NOT NULL,
      content_hash text NOT NULL, model text NOT NULL, dimensions integer NOT NULL CHECK (dimensions > 0),
      vector bytea NOT NULL, created_at bigint NOT NULL, UNIQUE (source_type, source_id, model))`,
  ],
};

const DIMS = 16;

/** A seeded generator, so each run searches the same vectors. */
function mulberry(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomVectors(n: number, seed: number): Float32Array[] {
  const next = mulberry(seed);
  return Array.from({ length: n }, () => Float32Array.from({ length: DIMS }, () => next() * 2 - 1));
}

function* insertVectors(agentId: string, prefix: string, vectors: readonly Float32Array[]): Program<void> {
  for (const [i, v] of vectors.entries()) {
    yield* run(
      postgresOnly(
        raw(
          `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
           VALUES ($1, 'memory', $2, $3, 'test-model', $4, $5, 0)`,
          agentId,
          `${prefix}-${i}`,
          `h-${prefix}-${i}`,
          v.length,
          Buffer.from(v.buffer, v.byteOffset, v.byteLength),
        ),
      ),
    );
  }
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    na += (a[i] as number) ** 2;
    nb += (b[i] as number) ** 2;
  }
  return dot / Math.sqrt(na * nb);
}

function exactTop(query: Float32Array, vectors: readonly Float32Array[], prefix: string, k: number): string[] {
  return vectors
    .map((v, i) => ({ id: `${prefix}-${i}`, c: cosine(query, v), i }))
    .sort((a, b) => b.c - a.c || a.i - b.i)
    .slice(0, k)
    .map((h) => h.id);
}

let pglite: PGlite;
let store: PostgresStore;
const agentA = randomVectors(600, 1);
const agentB = randomVectors(400, 2);
const queries = randomVectors(20, 3);

beforeAll(async () => {
  pglite = await PGlite.create({ extensions: { vector } });
  store = await openPostgresStore({ target: { pglite }, migrations: [embeddingsMigration] });
  await store.write(() => insertVectors('a', 'a', agentA));
}, 120_000);
afterAll(async () => {
  await store?.close();
  await pglite?.close();
});

describe('pgvector on PostgreSQL (PGlite)', () => {
  it('is set up at open and mirrors every stored vector exactly (float4 bytes decoded in SQL)', async () => {
    expect(store.vector).toMatchObject({ available: true });
    const rows = await store.read(() =>
      all<{ source_id: string; v: string }>(
        postgresOnly(raw("SELECT source_id, v::text AS v FROM memory_vectors WHERE agent_id = 'a' ORDER BY seq")),
      ),
    );
    expect(rows).toHaveLength(agentA.length);
    const decoded = rows.map((r) => Float32Array.from(JSON.parse(r.v) as number[]));
    expect(decoded).toEqual(agentA);
  });

  it('decodes subnormal, negative and zero components bit for bit', async () => {
    const odd = Float32Array.from([0, -0, 1.5e-45, -3e-39, 3.4e38, -1, 1e-7, 0.1, 0, 0, 0, 0, 0, 0, 0, 2]);
    await store.write(() => insertVectors('odd', 'odd', [odd]));
    const [row] = await store.read(() =>
      all<{ v: number[] }>(postgresOnly(raw("SELECT v::real[] AS v FROM memory_vectors WHERE agent_id = 'odd'"))),
    );
    expect(Float32Array.from(row?.v ?? [])).toEqual(odd);
  });

  it('searches an agent below the exact limit exactly, and another agent never changes it', async () => {
    const search = (q: Float32Array) =>
      store.read(() => searchPostgresVectors({ agentId: 'a', model: 'test-model', query: q, k: 10, pgvector: true }));
    const before = await Promise.all(queries.map(search));
    for (const [i, result] of before.entries()) {
      expect(result.completeness).toBe('exact');
      expect(result.layout).toBe('exact');
      expect(result.vectors).toBe(agentA.length);
      expect(result.hits.map((h) => h.memoryId)).toEqual(exactTop(queries[i] as Float32Array, agentA, 'a', 10));
      expect(result.hits[0]?.cosine).toBeCloseTo(
        cosine(queries[i] as Float32Array, agentA[Number(result.hits[0]?.memoryId.slice(2))] as Float32Array),
        5,
      );
    }
    await store.write(() => insertVectors('b', 'b', agentB));
    const after = await Promise.all(queries.map(search));
    expect(after).toEqual(before);
  });

  it('goes through the HNSW index above the exact limit, keeping neighbour recall', async () => {
    await store.createVectorIndex(DIMS);
    let found = 0;
    for (const query of queries) {
      const result = await store.read(() =>
        searchPostgresVectors({ agentId: 'a', model: 'test-model', query, k: 10, pgvector: true, exactMaxVectors: 50 }),
      );
      expect(result.completeness).toBe('approximate');
      expect(result.layout).toBe('hnsw');
      expect(result.hits).toHaveLength(10);
      expect(result.hits.every((h) => h.memoryId.startsWith('a-'))).toBe(true);
      const truth = new Set(exactTop(query, agentA, 'a', 10));
      found += result.hits.filter((h) => truth.has(h.memoryId)).length;
    }
    expect(found / (10 * queries.length)).toBeGreaterThanOrEqual(0.95);
  });

  it('refuses an index of a dimension pgvector cannot cover', async () => {
    const error = await store.createVectorIndex(4096).catch((e: unknown) => e);
    expect(isMemoryError(error, 'INVALID_INPUT')).toBe(true);
  });

  it('fills the mirror once: a later open neither recreates the trigger nor scans the vectors again', async () => {
    await store.write(() => run(postgresOnly(raw("DELETE FROM memory_vectors WHERE source_id = 'b-1'"))));
    const again = await openPostgresStore({ target: { pglite }, migrations: [embeddingsMigration] });
    expect(again.vector).toMatchObject({ available: true });
    const rows = await again.read(() =>
      all<{ n: number }>(postgresOnly(raw("SELECT count(*) AS n FROM memory_vectors WHERE source_id = 'b-1'"))),
    );
    expect(rows[0]?.n).toBe(0);
    await again.close();
  });

  it('drops a mirrored vector with its embeddings row', async () => {
    await store.write(() => run(postgresOnly(raw("DELETE FROM embeddings WHERE source_id = 'b-0'"))));
    const rows = await store.read(() =>
      all<{ n: number }>(postgresOnly(raw("SELECT count(*) AS n FROM memory_vectors WHERE agent_id = 'b'"))),
    );
    // b-0 deleted here, b-1 removed from the mirror by the test before.
    expect(rows[0]?.n).toBe(agentB.length - 2);
  });
});

describe('without pgvector (vectorExtension: off)', () => {
  it('compares the newest vectors exactly, and says when the window left some out', async () => {
    const plain = await openPostgresStore({
      target: { pglite },
      migrations: [embeddingsMigration],
      vectorExtension: 'off',
    });
    expect(plain.vector).toEqual({ available: false, reason: 'vectorExtension is off' });
    const query = queries[0] as Float32Array;
    const full = await plain.read(() =>
      searchPostgresVectors({ agentId: 'a', model: 'test-model', query, k: 10, pgvector: false }),
    );
    expect(full).toMatchObject({ completeness: 'exact', layout: 'scan', vectors: 600, searched: 600 });
    expect(full.hits.map((h) => h.memoryId)).toEqual(exactTop(query, agentA, 'a', 10));
    const windowed = await plain.read(() =>
      searchPostgresVectors({ agentId: 'a', model: 'test-model', query, k: 10, pgvector: false, scanWindow: 250 }),
    );
    expect(windowed).toMatchObject({ completeness: 'recent-window', searched: 250 });
    // The newest 250 rows are a-350 .. a-599.
    expect(windowed.hits.map((h) => h.memoryId)).toEqual(
      exactTop(query, agentA.slice(350), 'x', 10).map((id) => `a-${Number(id.slice(2)) + 350}`),
    );
    await plain.close();
  });
});
