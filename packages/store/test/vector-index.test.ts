import { createSeededRandom } from '@memory/core';
import { describe, expect, it, vi } from 'vitest';
import {
  findPartition,
  findVectorIndex,
  runVectorUpkeep,
  searchMemoryVectors,
  type VectorUpkeepOptions,
} from '../src/index.js';
import { upsertEmbedding } from '../src/repositories/embeddings.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { findBuild } from '../src/vector-index/builds.js';
import { CHUNK_SIZE, cellOf, FRESH_LIST } from '../src/vector-index/cells.js';
import { cachedListSizes } from '../src/vector-index/centroids.js';
import { LEGACY_BIT_TABLE } from '../src/vector-index/indexes.js';
import { trainListCentroids } from '../src/vector-index/kmeans.js';
import { makeEstimateQueries } from '../src/vector-index/recall-estimate.js';
import { nextUpkeepTask } from '../src/vector-index/upkeep.js';
import {
  assignBatch,
  beginBuild,
  buildEstimateInputs,
  chooseBuildProbes,
  cleanupBatch,
  drainBatch,
  rowsWithinChunkBudget,
} from '../src/vector-index/upkeep-steps.js';
import { clusteredVectors, forgetVectors as forget, putVector as store } from './support/vectors.js';

const DIMS = 16;
const OPTIONS: VectorUpkeepOptions = {
  exactMaxVectors: 300,
  targetRecall: 0.95,
  minProbeShare: 0.05,
  drainAfter: 50,
  stepMs: 10,
};

/** Exact top-k ids by cosine (unit vectors). */
function exactTop(all: ReadonlyMap<string, Float32Array>, query: Float32Array, k: number): string[] {
  return [...all]
    .map(([id, v]) => ({ id, s: v.reduce((acc, x, i) => acc + x * (query[i] as number), 0) }))
    .sort((a, b) => b.s - a.s)
    .slice(0, k)
    .map((x) => x.id);
}

describe('vector index partitions', () => {
  it('keeps a small partition exact and says so', async () => {
    const s = await createTestStore();
    const all = new Map<string, Float32Array>();
    clusteredVectors(200, 1, DIMS).forEach((v, i) => {
      all.set(`m${i}`, v);
      store(s, 'a', `m${i}`, v);
    });
    store(s, 'b', 'other', clusteredVectors(1, 2, DIMS)[0] as Float32Array);
    for (const query of clusteredVectors(10, 3, DIMS)) {
      const found = s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', query, 10));
      expect(found).toMatchObject({ completeness: 'exact', layout: 'exact', vectors: 200, searched: 200 });
      expect(found?.hits.map((h) => h.memoryId)).toEqual(exactTop(all, query, 10));
    }
    s.close();
  });

  it('rebuilds a partition as ivf in the background while the old generation answers, then switches and removes it', async () => {
    const s = await createTestStore();
    const all = new Map<string, Float32Array>();
    clusteredVectors(600, 4, DIMS).forEach((v, i) => {
      all.set(`m${i}`, v);
      store(s, 'a', `m${i}`, v);
    });
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    const planned = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    if (!index || !planned) throw new Error('index and partition expected');
    expect(planned).toMatchObject({ layout: 'exact', generation: 1, vectors: 600 });

    // Plan the build as the upkeep does: centroids trained on a sample, sample queries for the estimate.
    const sample = new Float32Array(600 * DIMS);
    [...all.values()].forEach((v, i) => {
      sample.set(v, i * DIMS);
    });
    const training = trainListCentroids(sample, DIMS, 24, createSeededRandom(5));
    let step = training.next();
    while (!step.done) step = training.next();
    const queries = makeEstimateQueries(
      sample,
      [...all.keys()].map((_, i) => i + 1),
      DIMS,
      8,
      createSeededRandom(6),
    );
    expect(
      s.write((sql) => beginBuild(sql, index, planned, { layout: 'ivf', centroids: step.value, queries }, 0)),
    ).toBe(true);
    // A second plan made from the same snapshot is refused: the partition moved on.
    expect(s.write((sql) => beginBuild(sql, index, planned, { layout: 'exact' }, 0))).toBe(false);

    // Half copied: queries still read generation 1, exactly.
    expect(s.write((sql) => assignBatch(sql, index, 'a', 300, undefined, 0))).toEqual({ rows: 300, done: false });
    const probe = clusteredVectors(1, 7, DIMS)[0] as Float32Array;
    let found = s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', probe, 10));
    expect(found).toMatchObject({ completeness: 'exact', layout: 'exact', vectors: 600 });
    expect(found?.hits.map((h) => h.memoryId)).toEqual(exactTop(all, probe, 10));

    // Writes during the build: a new vector lands in the answering generation (and is copied later);
    // a forgotten one leaves both generations.
    const added = Float32Array.from(probe);
    all.set('during', added);
    store(s, 'a', 'during', added);
    all.delete('m0');
    forget(s, 'm0');
    found = s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', probe, 10));
    expect(found?.hits[0]?.memoryId).toBe('during');
    expect(found?.hits.map((h) => h.memoryId)).toEqual(exactTop(all, probe, 10));

    // The rest; then, with the probe count the sample queries chose, the switch in the same
    // transaction as the last (empty) batch.
    while (!s.write((sql) => assignBatch(sql, index, 'a', 100, undefined, 0)).switchReady);
    const inputs = s.read((sql) => buildEstimateInputs(sql, index, 'a'));
    if (!inputs) throw new Error('estimate expected');
    const choosing = chooseBuildProbes(inputs, OPTIONS);
    let chosen = choosing.next();
    while (!chosen.done) chosen = choosing.next();
    expect(chosen.value.queries).toBe(32);
    expect(s.write((sql) => assignBatch(sql, index, 'a', 100, chosen.value, 0))).toEqual({ rows: 0, done: false });
    const switched = s.read((sql) => findPartition(sql, index.id, 'a'));
    expect(switched).toMatchObject({ layout: 'ivf', generation: 2, otherGeneration: 1, vectors: 600, lists: 24 });
    expect(switched?.estimatedRecall).toBeGreaterThan(0.5);
    found = s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', probe, 10));
    expect(found).toMatchObject({ completeness: 'approximate', layout: 'ivf', lists: 24 });
    expect(found?.hits[0]?.memoryId).toBe('during');
    expect(found?.hits.some((h) => h.memoryId === 'm0')).toBe(false);

    // Cleanup removes generation 1's rows; the partition then has one generation.
    const table = index.tableName;
    const rowsOf = (generation: number) =>
      s.read(
        (sql) =>
          sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${table} WHERE rowid >> 40 = ?`, generation))?.n ?? 0,
      );
    expect(rowsOf(1)).toBe(600);
    while (!s.write((sql) => cleanupBatch(sql, index, 'a', 128, 0)).done);
    expect(rowsOf(1)).toBe(0);
    expect(rowsOf(2)).toBe(600);
    expect(s.read((sql) => findPartition(sql, index.id, 'a'))?.otherGeneration).toBeNull();
    s.close();
  });

  it('runs the whole upkeep in bounded steps: ivf build, drains of new vectors, and back to exact when it shrinks', async () => {
    const s = await createTestStore();
    const all = new Map<string, Float32Array>();
    clusteredVectors(800, 8, DIMS).forEach((v, i) => {
      all.set(`m${i}`, v);
      store(s, 'a', `m${i}`, v);
    });
    const report = await runVectorUpkeep(s, OPTIONS);
    expect(report.finished).toBe(true);
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    let partition = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    expect(partition).toMatchObject({ layout: 'ivf', vectors: 800, otherGeneration: null });
    expect(partition?.probes).toBeGreaterThan(0);

    // New vectors wait in the fresh list (searched whole) until a drain assigns them.
    clusteredVectors(60, 9, DIMS).forEach((v, i) => {
      all.set(`n${i}`, v);
      store(s, 'a', `n${i}`, v);
    });
    const fresh = all.get('n0') as Float32Array;
    expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', fresh, 1))?.hits[0]?.memoryId).toBe('n0');
    await runVectorUpkeep(s, OPTIONS);
    partition = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    expect(partition?.drainedSeq).toBeGreaterThan(800);
    expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', fresh, 1))?.hits[0]?.memoryId).toBe('n0');

    // Forgetting most of it brings the partition below half the exact limit: rebuilt exact.
    for (const id of [...all.keys()].slice(0, 760)) {
      forget(s, id);
      all.delete(id);
    }
    await runVectorUpkeep(s, OPTIONS);
    partition = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    expect(partition).toMatchObject({ layout: 'exact', vectors: 100, otherGeneration: null });
    const query = clusteredVectors(1, 10, DIMS)[0] as Float32Array;
    expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', query, 10))?.hits.map((h) => h.memoryId)).toEqual(
      exactTop(all, query, 10),
    );
    s.close();
  });

  it('bounds every ivf KNN after the first by the k-th distance found so far: fewer rows read, the same hits', async () => {
    const s = await createTestStore();
    clusteredVectors(1500, 21, DIMS).forEach((v, i) => {
      store(s, 'a', `m${i}`, v);
    });
    await runVectorUpkeep(s, { ...OPTIONS, minProbeShare: 0.5 });
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    expect(s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'))).toMatchObject({ layout: 'ivf' });
    let bounded = 0;
    let unbounded = 0;
    for (const query of clusteredVectors(12, 22, DIMS)) {
      const [a, b] = s.read((sql) => {
        const knn = vi.spyOn(sql, 'all');
        const rowsOf = () =>
          knn.mock.calls.reduce(
            (n, [q], i) =>
              n + (q.sql.includes('MATCH') ? ((knn.mock.results[i]?.value as unknown[] | undefined)?.length ?? 0) : 0),
            0,
          );
        const withBound = searchMemoryVectors(sql, 'a', 'toy', query, 20);
        bounded += rowsOf();
        knn.mockClear();
        const without = searchMemoryVectors(sql, 'a', 'toy', query, 20, { bounded: false });
        unbounded += rowsOf();
        knn.mockRestore();
        return [withBound, without];
      });
      expect(a?.probes).toBeGreaterThan(1);
      expect(a?.hits).toEqual(b?.hits);
      expect(a?.hits).toHaveLength(20);
    }
    // Unbounded, every run returns its own 20 nearest; bounded, the later runs only what can enter.
    expect(bounded).toBeLessThan(unbounded / 2);
    s.close();
  });

  it('drains new vectors into the answering generation while a rebuild is under way, so its fresh list stays short', async () => {
    const s = await createTestStore();
    const all = new Map<string, Float32Array>();
    const add = (prefix: string, count: number, seed: number) =>
      clusteredVectors(count, seed, DIMS).forEach((v, i) => {
        all.set(`${prefix}${i}`, v);
        store(s, 'a', `${prefix}${i}`, v);
      });
    add('m', 800, 15);
    await runVectorUpkeep(s, OPTIONS);
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    if (!index) throw new Error('index expected');
    // Doubled: a rebuild is due. Start it and copy part of the vectors, as a long rebuild of a large
    // partition would be at any moment.
    add('n', 900, 16);
    const planned = s.read((sql) => findPartition(sql, index.id, 'a'));
    if (!planned) throw new Error('partition expected');
    expect(planned).toMatchObject({ layout: 'ivf', vectors: 1700, otherGeneration: null });
    const sample = new Float32Array(all.size * DIMS);
    [...all.values()].forEach((v, i) => {
      sample.set(v, i * DIMS);
    });
    const training = trainListCentroids(sample, DIMS, 32, createSeededRandom(17));
    let trained = training.next();
    while (!trained.done) trained = training.next();
    const queries = makeEstimateQueries(
      sample,
      [...all.keys()].map((_, i) => i + 1),
      DIMS,
      4,
      createSeededRandom(18),
    );
    s.write((sql) => beginBuild(sql, index, planned, { layout: 'ivf', centroids: trained.value, queries }, 0));
    expect(s.write((sql) => assignBatch(sql, index, 'a', 200, undefined, 0))).toEqual({ rows: 200, done: false });

    // Writes during the rebuild land in the answering generation's fresh list; the upkeep drains it
    // before copying on (it used to wait for the rebuild to finish, and every query searched the
    // whole backlog in one call).
    add('w', 120, 19);
    expect(s.read((sql) => nextUpkeepTask(sql, OPTIONS))).toMatchObject({ kind: 'drain', agentId: 'a' });
    while (!s.write((sql) => drainBatch(sql, index, 'a', 64, 0)).done);
    const freshRows = (generation: number) =>
      s.read(
        (sql) =>
          sql.get<{ n: number }>(
            raw(
              `SELECT count(*) AS n FROM ${index.tableName} WHERE rowid >> 40 = ? AND cell = ?`,
              generation,
              cellOf(generation, FRESH_LIST),
            ),
          )?.n,
      );
    const during = s.read((sql) => findPartition(sql, index.id, 'a'));
    expect(during).toMatchObject({ generation: planned.generation, vectors: 1820 });
    expect(during?.otherGeneration).not.toBeNull();
    expect(freshRows(planned.generation)).toBe(0);
    expect(s.read((sql) => nextUpkeepTask(sql, OPTIONS))).toMatchObject({ kind: 'assign' });
    for (const id of ['n5', 'w7']) {
      const query = all.get(id) as Float32Array;
      expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', query, 1))?.hits[0]?.memoryId).toBe(id);
    }

    // The rebuild then finishes with every vector, the drained ones included.
    expect((await runVectorUpkeep(s, OPTIONS)).finished).toBe(true);
    const after = s.read((sql) => findPartition(sql, index.id, 'a'));
    expect(after).toMatchObject({ layout: 'ivf', vectors: 1820, otherGeneration: null });
    expect(after?.generation).toBeGreaterThan(planned.generation);
    const query = all.get('w7') as Float32Array;
    expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', query, 1))?.hits[0]?.memoryId).toBe('w7');
    s.close();
  });

  it('stops a step at its deadline after the row in hand; the next carries on, and the list sizes stay right', async () => {
    const s = await createTestStore();
    const vectors = clusteredVectors(500, 31, DIMS);
    vectors.forEach((v, i) => {
      store(s, 'a', `m${i}`, v);
    });
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    const planned = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    if (!index || !planned) throw new Error('index and partition expected');
    const sample = new Float32Array(500 * DIMS);
    vectors.forEach((v, i) => {
      sample.set(v, i * DIMS);
    });
    const training = trainListCentroids(sample, DIMS, 20, createSeededRandom(32));
    let trained = training.next();
    while (!trained.done) trained = training.next();
    s.write((sql) => beginBuild(sql, index, planned, { layout: 'ivf', centroids: trained.value }, 0));
    const generation = s.read((sql) => findBuild(sql, index.id, 'a'))?.generation ?? 0;
    // What the database says each list holds, what vec0 holds per list, and the size cache the
    // next step plans with (keyed by the build's cursor).
    const check = () =>
      s.read((sql) => {
        const key = { indexId: index.id, agentId: 'a', generation };
        const stored = sql
          .all<{ size: number }>(
            raw(
              'SELECT size FROM vector_centroids WHERE index_id = ? AND agent_id = ? AND generation = ? AND list_id > 0 ORDER BY list_id',
              index.id,
              'a',
              generation,
            ),
          )
          .map((r) => r.size);
        const rows = new Array<number>(stored.length).fill(0);
        for (const r of sql.all<{ cell: number | bigint; n: number }>(
          raw(`SELECT cell, count(*) AS n FROM ${index.tableName} WHERE rowid >> 40 = ? GROUP BY cell`, generation),
        ))
          rows[Number(BigInt(r.cell) - BigInt(cellOf(generation, 0))) - 1] = r.n;
        const cursor = findBuild(sql, index.id, 'a')?.cursor ?? 0;
        return { stored, rows, cached: [...cachedListSizes(sql, { ...key, drainedSeq: cursor })] };
      });
    let steps = 0;
    for (;;) {
      // The deadline passes after the third row of every step (the pacer asked for 100).
      let left = 3;
      const step = s.write((sql) => assignBatch(sql, index, 'a', 100, undefined, 0, () => --left > 0));
      if (step.switchReady) break;
      expect(step.rows).toBe(Math.min(3, 500 - steps * 3));
      steps++;
      const { stored, rows, cached } = check();
      expect(cached).toEqual(stored);
      expect(rows).toEqual(stored);
    }
    expect(steps).toBe(Math.ceil(500 / 3));
    expect(check().stored.reduce((a, b) => a + b, 0)).toBe(500);
    s.close();
  });

  it('starts at most ~2 MiB of new vec0 chunks per step: lists that all need a chunk at once are filled over several steps', () => {
    // 384-d: a chunk is CHUNK_SIZE × 384 × 4 bytes (196 KB), so ten per step. Every list is full
    // to a chunk boundary (a wave, as lists fill at the same pace): the step stops at the 11th.
    const sizes = new Int32Array(40).fill(CHUNK_SIZE);
    const lists = Array.from({ length: 40 }, (_, i) => i);
    expect(rowsWithinChunkBudget(lists, sizes, 384)).toBe(10);
    expect([...sizes.subarray(0, 11)]).toEqual([...Array(10).fill(CHUNK_SIZE + 1), CHUNK_SIZE]);
    // Rows into lists with room in their chunk, or into a chunk this step started, all go.
    expect(rowsWithinChunkBudget([0, 1, 2, 0, 1, 2, 3], sizes, 384)).toBe(7);
    // At least one row, whatever the dimension.
    expect(rowsWithinChunkBudget([39, 38], new Int32Array(40), 8192)).toBe(1);
  });

  it('fills a new index from vectors stored before it, answering from the legacy bit mirror until it is ready', async () => {
    const s = await createTestStore();
    const all = new Map<string, Float32Array>();
    // A database from before the index: canonical vectors and the sign-bit mirror of the same model.
    s.write((sql) => {
      sql.run(
        raw(`CREATE VIRTUAL TABLE ${LEGACY_BIT_TABLE} USING vec0(agent_id text partition key, embedding bit[16])`),
      );
      sql.run(
        raw(
          "INSERT INTO vector_index_state (name, model, dimensions, created_at) VALUES (?, 'toy', ?, 0)",
          LEGACY_BIT_TABLE,
          DIMS,
        ),
      );
      clusteredVectors(120, 11, DIMS).forEach((v, i) => {
        all.set(`old${i}`, v);
        const seq = upsertEmbedding(sql, {
          agentId: 'a',
          sourceType: 'memory',
          sourceId: `old${i}`,
          contentHash: 'h',
          model: 'toy',
          vector: v,
          now: 0,
        });
        const bits = Buffer.alloc(2);
        v.forEach((x, d) => {
          if (x > 0) bits[d >> 3] = (bits[d >> 3] ?? 0) | (1 << (d & 7));
        });
        sql.run(
          raw(
            `INSERT INTO ${LEGACY_BIT_TABLE} (rowid, agent_id, embedding) VALUES (?, 'a', vec_bit(?))`,
            BigInt(seq),
            bits,
          ),
        );
      });
    });
    // The first new vector creates the index; it is filling, so searches fall back (undefined).
    const extra = clusteredVectors(1, 12, DIMS)[0] as Float32Array;
    all.set('new', extra);
    store(s, 'a', 'new', extra);
    expect(s.read((sql) => findVectorIndex(sql, 'toy', DIMS))).toMatchObject({ status: 'filling' });
    expect(s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', extra, 5))).toBeUndefined();
    // The new vector went to the legacy mirror as well, which keeps answering meanwhile.
    const legacyRows = () =>
      s.read((sql) => sql.get<{ n: number }>(raw(`SELECT count(*) AS n FROM ${LEGACY_BIT_TABLE}`))?.n);
    expect(legacyRows()).toBe(121);

    await runVectorUpkeep(s, OPTIONS);
    expect(s.read((sql) => findVectorIndex(sql, 'toy', DIMS))).toMatchObject({ status: 'ready' });
    expect(
      s.read((sql) => sql.get(raw('SELECT name FROM sqlite_master WHERE name = ?', LEGACY_BIT_TABLE))),
    ).toBeUndefined();
    const found = s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', extra, 10));
    expect(found).toMatchObject({ completeness: 'exact', vectors: 121 });
    expect(found?.hits.map((h) => h.memoryId)).toEqual(exactTop(all, extra, 10));
    s.close();
  });

  it('gives an upgraded database that is only read an index too: the upkeep creates and fills it', async () => {
    const s = await createTestStore();
    s.write((sql) => {
      sql.run(
        raw(`CREATE VIRTUAL TABLE ${LEGACY_BIT_TABLE} USING vec0(agent_id text partition key, embedding bit[16])`),
      );
      sql.run(
        raw(
          "INSERT INTO vector_index_state (name, model, dimensions, created_at) VALUES (?, 'toy', ?, 0)",
          LEGACY_BIT_TABLE,
          DIMS,
        ),
      );
      clusteredVectors(30, 13, DIMS).forEach((vector, i) => {
        upsertEmbedding(sql, {
          agentId: 'a',
          sourceType: 'memory',
          sourceId: `old${i}`,
          contentHash: 'h',
          model: 'toy',
          vector,
          now: 0,
        });
      });
    });
    expect(s.read((sql) => findVectorIndex(sql, 'toy', DIMS))).toBeUndefined();
    await runVectorUpkeep(s, OPTIONS);
    expect(s.read((sql) => findVectorIndex(sql, 'toy', DIMS))).toMatchObject({ status: 'ready' });
    expect(
      s.read((sql) => searchMemoryVectors(sql, 'a', 'toy', clusteredVectors(1, 14, DIMS)[0] as Float32Array, 5)),
    ).toMatchObject({
      completeness: 'exact',
      vectors: 30,
    });
    s.close();
  });
});
