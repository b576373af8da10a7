import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, isMemoryError } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { findVectorIndex, openStore, searchMemoryVectors, VectorIndexWriter } from '../src/index.js';
import { countEmbeddings, upsertEmbedding } from '../src/repositories/embeddings.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { ensureVectorIndex } from '../src/vector-index/indexes.js';

describe('openStore', () => {
  it('opens a file database in WAL with foreign keys and busy_timeout', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memory-store-')), 'x.db');
    const store = await openStore({ path });
    expect(store.isFile).toBe(true);
    expect(store.database.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(store.database.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(store.database.pragma('busy_timeout', { simple: true })).toBe(5000);
    store.close();
    store.close(); // idempotent
    expect(store.closed).toBe(true);
    expect(() => store.read(() => 1)).toThrow(expect.objectContaining({ code: 'ENGINE_CLOSED' }));
  });

  it('loads sqlite-vec, and reports (not fails) when it is turned off', async () => {
    const withVec = await createTestStore();
    expect(withVec.vector).toEqual({ available: true, version: expect.stringMatching(/^v0\.1\./) });
    const without = await createTestStore({ vectorExtension: 'off' });
    expect(without.vector.available).toBe(false);
    expect(without.vector).toHaveProperty('reason', expect.stringMatching(/disabled/));
  });

  it('leaves a host-owned database open on close', async () => {
    const db = new Database(':memory:');
    const store = await openStore({ database: db });
    store.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
  });

  it('requires exactly one of path and database', async () => {
    await expect(openStore({})).rejects.toSatisfy((e) => isMemoryError(e, 'INVALID_INPUT'));
  });

  it('wraps SQLite errors as STORAGE_ERROR and rolls the transaction back', async () => {
    const store = await createTestStore();
    expect(() =>
      store.write((sql) => {
        sql.run(
          raw(
            "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES ('e1', 'a', 'A', 'a', 0, 0)",
          ),
        );
        sql.run(raw('INSERT INTO no_such_table VALUES (1)'));
      }),
    ).toThrow(expect.objectContaining({ code: 'STORAGE_ERROR' }));
    expect(store.read((sql) => sql.get(raw('SELECT count(*) AS n FROM entities')))).toEqual({ n: 0 });
  });

  it('runs a nested write as a savepoint: its failure undoes only its own rows, and each write runs its own body', async () => {
    const store = await createTestStore();
    const insert = (id: string) =>
      raw(
        "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, 'a', ?, ?, 0, 0)",
        id,
        id,
        id,
      );
    const ids = () => store.read((sql) => sql.all<{ id: string }>(raw('SELECT id FROM entities ORDER BY id')));
    const result = store.write((sql) => {
      sql.run(insert('outer-1'));
      expect(() =>
        store.write((inner) => {
          inner.run(insert('inner-1'));
          inner.run(raw('INSERT INTO no_such_table VALUES (1)'));
        }),
      ).toThrow(expect.objectContaining({ code: 'STORAGE_ERROR' }));
      const kept = store.write((inner) => {
        inner.run(insert('inner-2'));
        return 'inner';
      });
      sql.run(insert('outer-2'));
      return `outer after ${kept}`;
    });
    expect(result).toBe('outer after inner');
    expect(ids().map((r) => r.id)).toEqual(['inner-2', 'outer-1', 'outer-2']);
    // A failed outer write undoes everything, its nested writes too; the next write runs its own body.
    expect(() =>
      store.write((sql) => {
        store.write((inner) => inner.run(insert('inner-3')));
        sql.run(insert('outer-1'));
      }),
    ).toThrow(expect.objectContaining({ code: 'STORAGE_ERROR' }));
    expect(store.write((sql) => sql.run(insert('last')).changes)).toBe(1);
    expect(ids().map((r) => r.id)).toEqual(['inner-2', 'last', 'outer-1', 'outer-2']);
    expect(store.database.inTransaction).toBe(false);
  });
});

describe('text index projection', () => {
  it('stays in sync with inserts, content updates and deletes through the triggers', async () => {
    const store = await createTestStore();
    const match = (term: string) =>
      store
        .read((sql) =>
          sql.all<{ id: string }>(
            raw('SELECT m.id FROM text_postings p JOIN memories m ON m.seq = p.row WHERE p.term = ?', term),
          ),
        )
        .map((r) => r.id);
    store.write((sql) =>
      sql.run(
        raw(
          `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
           VALUES ('m1', 'a', 'fact', 'the zebra runs', 'the zebra runs', 'h1', 0, 0)`,
        ),
      ),
    );
    expect(match('zebra')).toEqual(['m1']);
    store.write((sql) => sql.run(raw("UPDATE memories SET content = 'the okapi runs' WHERE id = 'm1'")));
    expect(match('zebra')).toEqual([]);
    expect(match('okapi')).toEqual(['m1']);
    store.write((sql) => sql.run(raw("DELETE FROM memories WHERE id = 'm1'")));
    expect(match('okapi')).toEqual([]);
    expect(store.read((sql) => sql.get(raw("SELECT count(*) AS n FROM text_postings WHERE term = 'run'")))).toEqual({
      n: 0,
    });
  });

  it('keeps no FTS5 index (migration 20 dropped them: nothing read them)', async () => {
    const store = await createTestStore();
    const virtual = store.read((sql) =>
      sql.all<{ name: string }>(raw("SELECT name FROM sqlite_master WHERE sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")),
    );
    expect(virtual).toEqual([]);
  });
});

describe('vector index', () => {
  const vec = (...xs: number[]) => Float32Array.from(xs);
  const row = (agentId: string, sourceId: string, vector: Float32Array, model = 'toy') => ({
    agentId,
    sourceType: 'memory',
    sourceId,
    contentHash: `h-${sourceId}-${vector.join(',')}`,
    model,
    vector,
    now: 0,
  });

  it('creates the vec0 table for the model, partitions by agent, and replaces on re-embed', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      const index = new VectorIndexWriter(sql, true, 0);
      upsertEmbedding(sql, row('a', 'm1', vec(1, 0, 0)), index);
      upsertEmbedding(sql, row('b', 'm2', vec(1, 0, 0)), index);
      upsertEmbedding(sql, row('a', 'm1', vec(0, 1, 0)), index);
    });
    expect(store.read((sql) => countEmbeddings(sql, 'a'))).toEqual({ canonical: 1, indexed: 1 });
    // The KNN stays inside agent a's partition and finds the current vector only, exactly.
    const found = store.read((sql) => searchMemoryVectors(sql, 'a', 'toy', vec(0, 1, 0), 5));
    expect(found).toMatchObject({ completeness: 'exact', layout: 'exact', vectors: 1 });
    expect(found?.hits.map((h) => h.memoryId)).toEqual(['m1']);
    expect(found?.hits[0]?.cosine).toBeCloseTo(1, 5);
    const table = store.read((sql) => findVectorIndex(sql, 'toy', 3))?.tableName;
    expect(store.read((sql) => sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${table}`)))?.n).toBe(2);
  });

  it('keeps one index per model and dimension count', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      const index = new VectorIndexWriter(sql, true, 0);
      upsertEmbedding(sql, row('a', 'm1', vec(1, 0), 'small'), index);
      upsertEmbedding(sql, row('a', 'm2', vec(1, 0, 0, 0), 'big'), index);
      expect(ensureVectorIndex(sql, true, 'big', 4, 0)?.status).toBe('ready');
    });
    expect(store.read((sql) => countEmbeddings(sql, 'a'))).toEqual({ canonical: 2, indexed: 2 });
    expect(store.read((sql) => searchMemoryVectors(sql, 'a', 'small', vec(0, 1), 5))?.hits).toHaveLength(1);
    expect(store.read((sql) => searchMemoryVectors(sql, 'a', 'other', vec(0, 1), 5))).toBeUndefined();
  });

  it('refuses non-finite vectors', async () => {
    const store = await createTestStore();
    expect(() => store.write((sql) => upsertEmbedding(sql, row('a', 'm', vec(Number.NaN, 1), 't')))).toThrow(
      expect.objectContaining({ code: 'PROVIDER_ERROR' }),
    );
  });
});

describe('background WAL checkpoints', () => {
  it('checkpoints file databases on a worker thread, and the writer checkpoints itself only past 64,000 pages', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'memory-ckpt-')), 'c.db');
    const store = await openStore({ path });
    expect(store.database.pragma('wal_autocheckpoint', { simple: true })).toBe(64_000);
    store.write((sql) => {
      // A vec0 table in the schema must not trouble the worker's connection, which has no sqlite-vec.
      ensureVectorIndex(sql, store.vector.available, 'toy', 4, 0);
      for (let i = 0; i < 500; i++) {
        sql.run(
          raw(
            `INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, 'a', ?, ?, 0, 0)`,
            `e${i}`,
            `n${i}`,
            `n${i}`,
          ),
        );
      }
    });
    const result = await store.checkpoint();
    expect(result?.log).toBeGreaterThan(0);
    expect(result?.checkpointed).toBe(result?.log);
    // The worker's connection saw the committed rows.
    const reader = new Database(path, { readonly: true });
    expect(reader.prepare('SELECT count(*) AS n FROM entities').get()).toEqual({ n: 500 });
    reader.close();
    store.close();
    await expect(store.checkpoint()).resolves.toBeUndefined();
  });

  it('is absent for in-memory databases and when turned off', async () => {
    const memory = await createTestStore();
    await expect(memory.checkpoint()).resolves.toBeUndefined();
    const path = join(mkdtempSync(join(tmpdir(), 'memory-ckpt-')), 'c.db');
    const off = await openStore({ path, config: { ...defaultConfig.store, backgroundCheckpoint: false } });
    await expect(off.checkpoint()).resolves.toBeUndefined();
    expect(off.database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    off.close();
  });
});
