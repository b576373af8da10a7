import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSeededRandom } from '@memory/core';
import { describe, expect, it, vi } from 'vitest';
import wabtInit from 'wabt';
import {
  findPartition,
  findVectorIndex,
  runVectorUpkeep,
  type Store,
  scanCacheIdle,
  scanCacheOf,
  searchMemoryVectorsInSlices,
  type VectorSearch,
  type VectorUpkeepOptions,
} from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { SCAN_KERNEL_WASM } from '../src/vector-index/scan-kernel-wasm.js';
import { ScanMatrix } from '../src/vector-index/scan-matrix.js';
import { forgetVectors as forget, putVector as put } from './support/vectors.js';

// The scan cache against the vec0 path on the same partition: 384-d vectors shaped like the hashing
// embedder's (a few signed hashed tokens from a skewed vocabulary), with a little dense noise so
// that no two distances tie (ties may be ordered either way by either path).

const DIMS = 384;
const OPTIONS: VectorUpkeepOptions = {
  exactMaxVectors: 300,
  targetRecall: 0.95,
  minProbeShare: 0.1,
  drainAfter: 20,
  stepMs: 10,
};
const CACHE = { bytes: 64 * 1024 * 1024, minVectors: 100 };

function hashingVectors(count: number, seed: number): Float32Array[] {
  const random = createSeededRandom(seed);
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: DIMS }, () => (random.float() - 0.5) * 0.02);
    const tokens = 4 + Math.floor(random.float() * 8);
    for (let t = 0; t < tokens; t++) {
      // A skewed vocabulary of 600 tokens, each a signed dimension (as a hashing embedder's).
      const token = Math.floor(600 * random.float() ** 2);
      const dim = (token * 2654435761) % DIMS;
      v[dim] = (v[dim] as number) + (token % 2 === 0 ? 1 : -1);
    }
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

function search(s: Store, agentId: string, query: Float32Array, k: number, scanCache?: typeof CACHE) {
  return searchMemoryVectorsInSlices(s, {
    agentId,
    model: 'toy',
    query,
    k,
    sliceRows: 20_000,
    ...(scanCache ? { scanCache } : {}),
  }) as Promise<VectorSearch>;
}

/** A store with agent `a` (`count` vectors, ivf) and agent `b` (copies of `a`'s first 300 under other ids). */
async function ivfStore(count = 2500): Promise<{ s: Store; all: Float32Array[] }> {
  const s = await createTestStore();
  const all = hashingVectors(count, 7);
  all.forEach((v, i) => {
    put(s, 'a', `a${i}`, v);
  });
  all.slice(0, 300).forEach((v, i) => {
    put(s, 'b', `b${i}`, v);
  });
  await runVectorUpkeep(s, OPTIONS);
  const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
  expect(s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'))).toMatchObject({ layout: 'ivf', vectors: count });
  return { s, all };
}

/** Starts the agent's fill with one search (answered by vec0) and waits for it. */
async function filled(s: Store, agentId: string, query: Float32Array): Promise<void> {
  const first = await search(s, agentId, query, 10, CACHE);
  expect(first.scanCache).toBeUndefined();
  await scanCacheIdle(s);
}

describe('vector scan cache', () => {
  it('returns the same top-k as the vec0 path on the same probed lists, and reports the same honesty fields', async () => {
    const { s, all } = await ivfStore();
    const queries = hashingVectors(25, 99);
    await filled(s, 'a', queries[0] as Float32Array);
    expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 1 });
    // Queries near stored vectors (hard: many close neighbours) and unrelated ones.
    const near = all.slice(0, 10).map((v, i) => v.map((x, d) => x + (queries[i]?.[d] ?? 0) * 0.3));
    for (const query of [...queries, ...near]) {
      for (const k of [10, 50]) {
        const vec0 = await search(s, 'a', query, k);
        const scan = await search(s, 'a', query, k, CACHE);
        expect(scan.scanCache).toEqual({ pool: Math.max(4 * k, 64) });
        expect(vec0.scanCache).toBeUndefined();
        const { hits: _a, scanCache: _p, ...scanReport } = scan;
        const { hits: _b, ...vec0Report } = vec0;
        expect(scanReport).toEqual(vec0Report);
        expect(scanReport).toMatchObject({ completeness: 'approximate', layout: 'ivf' });
        expect(scan.hits.map((h) => h.memoryId)).toEqual(vec0.hits.map((h) => h.memoryId));
        scan.hits.forEach((h, i) => {
          expect(h.cosine).toBe(vec0.hits[i]?.cosine);
        });
      }
    }
    s.close();
  });

  it('reads lists larger than one KNN in pages, and lists of one repeated vector in seq order', async () => {
    const { s, all } = await ivfStore();
    // 2,000 copies of one vector land in one list: pages cannot get past a page of equal distances.
    const copy = hashingVectors(1, 123)[0] as Float32Array;
    for (let i = 0; i < 2000; i++) put(s, 'a', `c${i}`, copy);
    await runVectorUpkeep(s, OPTIONS);
    // The cache holds the drained vectors; a few may still wait in the fresh list (a drain takes
    // at least `drainAfter` of them), which vec0 searches: how many depends on the steps' timing.
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    const { drainedSeq } = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a')) ?? { drainedSeq: 0 };
    const drained = s.read((sql) =>
      sql.get<{ n: number }>(raw("SELECT count(*) AS n FROM embeddings WHERE agent_id = 'a' AND seq <= ?", drainedSeq)),
    )?.n;
    expect(drained).toBeGreaterThan(4500 - OPTIONS.drainAfter);
    for (const listPage of [7, 300]) {
      const options = { ...CACHE, listPage };
      scanCacheOf(s).clear();
      expect((await search(s, 'a', all[0] as Float32Array, 10, options)).scanCache).toBeUndefined();
      await scanCacheIdle(s);
      expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 1, rows: drained });
      for (const query of all.slice(0, 10)) {
        const scan = await search(s, 'a', query, 50, options);
        expect(scan.scanCache).toBeDefined();
        expect(scan.hits.map((h) => h.memoryId)).toEqual((await search(s, 'a', query, 50)).hits.map((h) => h.memoryId));
      }
      // Among 2,000 equal distances either path may keep any 50: the distances are the same.
      const scan = await search(s, 'a', copy, 50, options);
      expect(scan.hits.map((h) => h.cosine)).toEqual((await search(s, 'a', copy, 50)).hits.map((h) => h.cosine));
      expect(scan.hits.every((h) => h.memoryId.startsWith('c'))).toBe(true);
    }
    s.close();
  });

  it('never returns a memory deleted after the fill', async () => {
    const { s, all } = await ivfStore();
    await filled(s, 'a', all[0] as Float32Array);
    const target = all[42] as Float32Array;
    expect((await search(s, 'a', target, 10, CACHE)).hits[0]?.memoryId).toBe('a42');
    forget(s, 'a42');
    const after = await search(s, 'a', target, 10, CACHE);
    expect(after.scanCache).toBeDefined();
    expect(after.hits.map((h) => h.memoryId)).not.toContain('a42');
    expect(after.hits.map((h) => h.memoryId)).toEqual((await search(s, 'a', target, 10)).hits.map((h) => h.memoryId));
    s.close();
  });

  it('refills an entry whose candidates are mostly deleted memories, answering correctly meanwhile', async () => {
    const { s, all } = await ivfStore();
    await filled(s, 'a', all[0] as Float32Array);
    for (let i = 0; i < 2000; i++) forget(s, `a${i}`);
    const query = all[2100] as Float32Array;
    const ghosts = await search(s, 'a', query, 10, CACHE);
    expect(ghosts.scanCache).toBeDefined();
    expect(ghosts.hits.map((h) => h.memoryId)).toEqual((await search(s, 'a', query, 10)).hits.map((h) => h.memoryId));
    // That search found most candidates gone and dropped the entry: vec0 answers while it refills.
    expect((await search(s, 'a', query, 10, CACHE)).scanCache).toBeUndefined();
    await scanCacheIdle(s);
    const refilled = await search(s, 'a', query, 10, CACHE);
    expect(refilled.scanCache).toBeDefined();
    expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 1, rows: 500 });
    expect(refilled.hits.map((h) => h.memoryId)).toEqual((await search(s, 'a', query, 10)).hits.map((h) => h.memoryId));
    s.close();
  });

  it('finds vectors added after the fill: fresh ones through vec0, drained ones once the entry caught up', async () => {
    const { s, all } = await ivfStore();
    await filled(s, 'a', all[0] as Float32Array);
    const added = hashingVectors(150, 31);
    added.forEach((v, i) => {
      put(s, 'a', `n${i}`, v);
    });
    // Fresh (not yet drained): the entry is still current, the fresh list is searched by vec0.
    const fresh = await search(s, 'a', added[5] as Float32Array, 10, CACHE);
    expect(fresh.scanCache).toBeDefined();
    expect(fresh.hits[0]?.memoryId).toBe('n5');
    await runVectorUpkeep(s, OPTIONS);
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    const partition = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    expect(partition?.generation).toBeDefined();
    // Drained since the fill: vec0 answers while the entry catches up, then the entry does.
    const stale = await search(s, 'a', added[7] as Float32Array, 10, CACHE);
    expect(stale.scanCache).toBeUndefined();
    expect(stale.hits[0]?.memoryId).toBe('n7');
    await scanCacheIdle(s);
    for (const [i, v] of added.entries()) {
      const found = await search(s, 'a', v, 10, CACHE);
      expect(found.scanCache).toBeDefined();
      expect(found.hits[0]?.memoryId).toBe(`n${i}`);
    }
    s.close();
  });

  it('drops the entry of a generation a rebuild replaced, and fills the new one', async () => {
    const { s, all } = await ivfStore(1200);
    await filled(s, 'a', all[0] as Float32Array);
    const index = s.read((sql) => findVectorIndex(sql, 'toy', DIMS));
    const before = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    const bytesBefore = scanCacheOf(s).stats().bytes;
    // More than doubling the partition rebuilds it as a new generation.
    hashingVectors(1300, 41).forEach((v, i) => {
      put(s, 'a', `r${i}`, v);
    });
    await runVectorUpkeep(s, OPTIONS);
    const after = s.read((sql) => findPartition(sql, index?.id ?? 0, 'a'));
    expect(after?.generation).toBeGreaterThan(before?.generation ?? 0);
    const first = await search(s, 'a', all[3] as Float32Array, 10, CACHE);
    expect(first.scanCache).toBeUndefined();
    expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 0 });
    await scanCacheIdle(s);
    expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 1 });
    expect(scanCacheOf(s).stats().bytes).toBeGreaterThan(bytesBefore);
    const found = await search(s, 'a', all[3] as Float32Array, 10, CACHE);
    expect(found.scanCache).toBeDefined();
    expect(found.hits.map((h) => h.memoryId)).toEqual(
      (await search(s, 'a', all[3] as Float32Array, 10)).hits.map((h) => h.memoryId),
    );
    s.close();
  });

  it("never shows another agent's vectors", async () => {
    const { s, all } = await ivfStore();
    await filled(s, 'a', all[0] as Float32Array);
    for (const v of all.slice(0, 30)) {
      const found = await search(s, 'a', v, 50, CACHE);
      expect(found.scanCache).toBeDefined();
      expect(found.hits.length).toBe(50);
      expect(found.hits.every((h) => h.memoryId.startsWith('a'))).toBe(true);
    }
    // Agent b's partition (exact, 300 vectors) is not cached and finds only its own.
    const b = await search(s, 'b', all[0] as Float32Array, 10, CACHE);
    expect(b).toMatchObject({ layout: 'exact' });
    expect(b.hits[0]?.memoryId).toBe('b0');
    expect(b.hits.every((h) => h.memoryId.startsWith('b'))).toBe(true);
    expect(scanCacheOf(s).stats().entries).toBe(1);
    s.close();
  });

  it('with a budget of 0, or one too small for the partition, vec0 answers and nothing is held', async () => {
    const { s, all } = await ivfStore();
    for (const bytes of [0, 1024]) {
      const found = await search(s, 'a', all[1] as Float32Array, 10, { ...CACHE, bytes });
      await scanCacheIdle(s);
      expect(found.scanCache).toBeUndefined();
      expect(found.hits[0]?.memoryId).toBe('a1');
      expect(scanCacheOf(s).stats()).toEqual({ entries: 0, bytes: 0, ready: 0, rows: 0 });
    }
    // Below `minVectors` the partition is not worth an entry.
    await search(s, 'a', all[1] as Float32Array, 10, { ...CACHE, minVectors: 10_000 });
    expect(scanCacheOf(s).stats().entries).toBe(0);
    s.close();
  });

  it('a store closed during a fill stops it at the next slice, with nothing pending', async () => {
    const { s, all } = await ivfStore();
    await search(s, 'a', all[0] as Float32Array, 10, CACHE);
    expect(scanCacheOf(s).stats()).toMatchObject({ entries: 1, ready: 0 });
    const reads = vi.spyOn(s, 'read');
    s.close();
    expect(scanCacheOf(s).stats()).toEqual({ entries: 0, bytes: 0, ready: 0, rows: 0 });
    await scanCacheIdle(s);
    // The fill noticed the close before its next read.
    expect(reads).not.toHaveBeenCalled();
    expect(scanCacheOf(s).stats()).toEqual({ entries: 0, bytes: 0, ready: 0, rows: 0 });
  });

  it('a closed store drops a filled entry at once', async () => {
    const { s, all } = await ivfStore();
    await filled(s, 'a', all[0] as Float32Array);
    expect(scanCacheOf(s).stats().bytes).toBeGreaterThan(2500 * DIMS);
    s.close();
    expect(scanCacheOf(s).stats()).toEqual({ entries: 0, bytes: 0, ready: 0, rows: 0 });
  });

  it('the committed kernel bytes are the compiled scan-kernel.wat', async () => {
    const wat = readFileSync(join(import.meta.dirname, '../src/vector-index/scan-kernel.wat'), 'utf8');
    const wabt = await wabtInit();
    const module = wabt.parseWat('scan-kernel.wat', wat, { simd: true });
    module.validate();
    const { buffer } = module.toBinary({});
    module.destroy();
    expect(Buffer.from(buffer).toString('base64')).toBe(SCAN_KERNEL_WASM);
  });

  it('does not overflow its 32-bit sums on wide vectors of equal magnitudes', () => {
    // 768-d vectors of ±1 (binary embeddings as floats): every product is at its largest, so a
    // 16-bit query at full scale would sum past 2^31 and score the identical row lowest.
    const dims = 768;
    const random = createSeededRandom(9);
    const rows = Array.from({ length: 40 }, () =>
      Float32Array.from({ length: dims }, () => (random.float() < 0.5 ? -1 : 1)),
    );
    const m = new ScanMatrix(dims, rows.length, rows.length);
    rows.forEach((v, i) => {
      m.setRow(i, v);
    });
    m.setQuery(rows[11] as Float32Array);
    m.score(0, rows.length, 0);
    const scores = Array.from(m.scores());
    expect(scores.indexOf(Math.max(...scores))).toBe(11);
    expect(scores[11]).toBeGreaterThan(0);
    // The opposite vector scores lowest, and negative.
    m.setQuery((rows[11] as Float32Array).map((x) => -x));
    m.score(0, rows.length, 0);
    const opposite = Array.from(m.scores());
    expect(opposite.indexOf(Math.min(...opposite))).toBe(11);
    expect(opposite[11]).toBeLessThan(0);
  });

  it('scores rows proportionally to their cosine with the query, up to the int8 rounding', () => {
    const rows = hashingVectors(300, 5).map((v, i) => (i % 3 === 0 ? v.map((x) => x * 7) : v));
    const query = hashingVectors(1, 6)[0] as Float32Array;
    const m = new ScanMatrix(DIMS, rows.length, rows.length);
    rows.forEach((v, i) => {
      m.setRow(i, v);
    });
    m.setRow(7, new Float32Array(DIMS));
    m.setQuery(query);
    m.score(0, 150, 0);
    m.score(150, 150, 150);
    const scores = m.scores();
    const cosines = rows.map((v, i) => {
      if (i === 7) return 0;
      let dot = 0;
      for (let d = 0; d < DIMS; d++) dot += (v[d] as number) * (query[d] as number);
      return dot / Math.hypot(...v) / Math.hypot(...query);
    });
    // One common factor (the query's scale) maps every score to its cosine.
    const factor = (cosines[1] as number) / (scores[1] as number);
    expect(scores[7]).toBe(0);
    cosines.forEach((c, i) => {
      expect(Math.abs((scores[i] as number) * factor - c)).toBeLessThan(0.02);
    });
  });
});
