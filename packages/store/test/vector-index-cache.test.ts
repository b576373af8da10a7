import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findVectorIndex, runVectorUpkeep, type Store, VectorIndexWriter } from '../src/index.js';
import { upsertEmbedding } from '../src/repositories/embeddings.js';
import { raw, type SqlExecutor } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { advanceIndexFill, LEGACY_BIT_TABLE } from '../src/vector-index/indexes.js';
import { clusteredVectors, putVector } from './support/vectors.js';

// `findVectorIndex` keeps the ready indexes it read, per connection, so a write does not look its
// index up every transaction. A row read inside the transaction that created it or made it ready
// is not kept (that transaction, or a savepoint of it, may roll back); misses and filling indexes
// are never kept, so what another connection creates or fills is seen.

const DIMS = 16;
const vectors = clusteredVectors(8, 41, DIMS);
const vector = (i: number) => vectors[i] as Float32Array;

/** Stores a canonical vector and indexes it, on the caller's executor (inside its transaction). */
function putIn(sql: SqlExecutor, id: string, v: Float32Array): void {
  upsertEmbedding(
    sql,
    { agentId: 'a', sourceType: 'memory', sourceId: id, contentHash: `h-${id}`, model: 'toy', vector: v, now: 0 },
    new VectorIndexWriter(sql, true, 0),
  );
}

const find = (s: Store) => s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
const vecRows = (s: Store) => s.read((sql) => sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM vec_memory_1'))?.n);

/** A database from before the index: a canonical vector and the legacy mirror of its model. */
function withLegacyMirror(s: Store): void {
  s.write((sql) => {
    sql.run(raw(`CREATE VIRTUAL TABLE ${LEGACY_BIT_TABLE} USING vec0(agent_id text partition key, embedding bit[16])`));
    sql.run(
      raw(
        "INSERT INTO vector_index_state (name, model, dimensions, created_at) VALUES (?, 'toy', ?, 0)",
        LEGACY_BIT_TABLE,
        DIMS,
      ),
    );
    upsertEmbedding(sql, {
      agentId: 'a',
      sourceType: 'memory',
      sourceId: 'old',
      contentHash: 'h',
      model: 'toy',
      vector: vector(0),
      now: 0,
    });
  });
}

/** Runs `write`, which must fail with `message` (the store wraps it: the test's error is the cause). */
function rollsBack(write: () => void, message: string): void {
  let caught: unknown;
  try {
    write();
  } catch (error) {
    caught = error;
  }
  expect((caught as { cause?: Error } | undefined)?.cause?.message).toBe(message);
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('the ready vector indexes a connection keeps', () => {
  it('keeps a committed ready index: a later transaction looks it up without a statement', async () => {
    const s = await createTestStore();
    putVector(s, 'a', 'm0', vector(0));
    // The creating transaction's lookups are not kept; the next transaction's is.
    putVector(s, 'a', 'm1', vector(1));
    s.write((sql) => {
      const get = vi.spyOn(sql, 'get');
      expect(findVectorIndex(sql, 'toy', DIMS)).toMatchObject({ status: 'ready', tableName: 'vec_memory_1' });
      expect(get).not.toHaveBeenCalled();
      get.mockRestore();
    });
    s.close();
  });

  it('does not keep an index whose creating transaction rolled back', async () => {
    const s = await createTestStore();
    rollsBack(
      () =>
        s.write((sql) => {
          putIn(sql, 'm0', vector(0));
          // A second lookup in the creating transaction (another writer of the same transaction).
          expect(findVectorIndex(sql, 'toy', DIMS)).toMatchObject({ status: 'ready' });
          throw new Error('roll back');
        }),
      'roll back',
    );
    expect(find(s)).toBeUndefined();
    // The next write creates it again (with the cached row it would write to a table that is gone).
    putVector(s, 'a', 'm1', vector(1));
    expect(find(s)).toMatchObject({ status: 'ready' });
    expect(vecRows(s)).toBe(1);
    s.close();
  });

  it('does not keep an index created in a savepoint that rolled back, the outer transaction committing', async () => {
    const s = await createTestStore();
    s.write(() => {
      // A nested write is a savepoint of the outer one.
      rollsBack(
        () =>
          s.write((sql) => {
            putIn(sql, 'm0', vector(0));
            expect(findVectorIndex(sql, 'toy', DIMS)).toMatchObject({ status: 'ready' });
            throw new Error('roll back the savepoint');
          }),
        'roll back the savepoint',
      );
    });
    expect(find(s)).toBeUndefined();
    // A program's own savepoint (as imports use), rolled back inside a committed write.
    s.write((sql) => {
      sql.run(raw('SAVEPOINT attempt'));
      putIn(sql, 'm1', vector(1));
      expect(findVectorIndex(sql, 'toy', DIMS)).toMatchObject({ status: 'ready' });
      sql.run(raw('ROLLBACK TO SAVEPOINT attempt'));
      sql.run(raw('RELEASE SAVEPOINT attempt'));
    });
    expect(find(s)).toBeUndefined();
    putVector(s, 'a', 'm2', vector(2));
    expect(vecRows(s)).toBe(1);
    s.close();
  });

  it('sees a filling index become ready, and not a fill that rolled back', async () => {
    const s = await createTestStore();
    withLegacyMirror(s);
    putVector(s, 'a', 'm1', vector(1));
    const filling = find(s);
    expect(filling).toMatchObject({ status: 'filling' });
    rollsBack(
      () =>
        s.write((sql) => {
          advanceIndexFill(sql, filling as NonNullable<typeof filling>, Number.MAX_SAFE_INTEGER, 0);
          expect(findVectorIndex(sql, 'toy', DIMS)).toMatchObject({ status: 'ready' });
          throw new Error('roll back the fill');
        }),
      'roll back the fill',
    );
    expect(find(s)).toMatchObject({ status: 'filling' });
    // While filling, a new vector still goes to the legacy mirror (a kept `ready` row would skip it).
    const legacyRows = () =>
      s.read((sql) => sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${LEGACY_BIT_TABLE}`))?.n);
    const before = legacyRows() as number;
    putVector(s, 'a', 'm2', vector(2));
    expect(legacyRows()).toBe(before + 1);
    await runVectorUpkeep(s, {
      exactMaxVectors: 300,
      targetRecall: 0.95,
      minProbeShare: 0.05,
      drainAfter: 50,
      stepMs: 10,
    });
    expect(find(s)).toMatchObject({ status: 'ready' });
    s.close();
  });

  it('sees an index another connection created (misses are not kept) and writes through it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vector-index-cache-'));
    dirs.push(dir);
    const path = join(dir, 'shared.db');
    const a = await createTestStore({ path });
    const b = await createTestStore({ path });
    expect(find(a)).toBeUndefined();
    putVector(b, 'a', 'm0', vector(0));
    expect(find(a)).toMatchObject({ status: 'ready', tableName: 'vec_memory_1' });
    // A writes through the index B created.
    putVector(a, 'a', 'm1', vector(1));
    expect(vecRows(b)).toBe(2);
    a.close();
    b.close();
  });

  it('sees the fill another connection finished: a filling index is read until it is ready', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vector-index-cache-'));
    dirs.push(dir);
    const path = join(dir, 'shared.db');
    const a = await createTestStore({ path });
    const b = await createTestStore({ path });
    withLegacyMirror(b);
    putVector(a, 'a', 'm1', vector(1));
    putVector(a, 'a', 'm2', vector(2));
    expect(find(a)).toMatchObject({ status: 'filling' });
    await runVectorUpkeep(b, {
      exactMaxVectors: 300,
      targetRecall: 0.95,
      minProbeShare: 0.05,
      drainAfter: 50,
      stepMs: 10,
    });
    expect(find(b)).toMatchObject({ status: 'ready' });
    // B dropped the legacy mirror with the fill: A, with a kept `filling` row, would write to it.
    putVector(a, 'a', 'm3', vector(3));
    expect(find(a)).toMatchObject({ status: 'ready' });
    expect(vecRows(a)).toBe(4);
    a.close();
    b.close();
  });
});
