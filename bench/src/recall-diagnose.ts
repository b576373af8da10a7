// Why the audits' recall estimate differs from the recall bench:recall measures. On a kept one-agent
// file (`bench:recall --db FILE`; pass a copy), for each of the first `--questions` questions of the
// bench's corpus: the exact top 10 over the stored vectors (the engine's `embeddings` rows) and over
// the bench's fixture matrix; the "list model" recall the audits assume (the share of the true top 10
// whose list ranks among the probed ones, the fresh list always found); and the recall of what the
// search really returns, through the scan cache and through vec0. Prints the means per question range
// (the bench's measured and warm-up questions) and a per-question log (--out).
//   npx tsx --conditions=@memory/source src/recall-diagnose.ts --db /tmp/copy.db --embedder dense --size 100000
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { normalizeForStorage } from '@memory/core';
import { createHashingEmbedder, createOfflineEmbedder } from '@memory/providers';
import {
  findPartition,
  findVectorIndex,
  openStore,
  searchMemoryVectors,
  searchMemoryVectorsInSlices,
} from '@memory/store';
import { raw } from '../../packages/store/src/internal/sql.js';
import { cachedCentroids } from '../../packages/store/src/vector-index/centroids.js';
import { listRanks } from '../../packages/store/src/vector-index/kmeans.js';
import { listedVectorsBetween } from '../../packages/store/src/vector-index/vec-rows.js';
import { DEFAULT_DATA_DIR } from './bench-data.js';
import { createProjectedEmbedder } from './projected-embedder.js';
import { createRealCorpus, createSyntheticCorpus } from './vector-corpus.js';
import { embedFixture } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    embedder: { type: 'string', default: 'dense' },
    size: { type: 'string', default: '100000' },
    questions: { type: 'string', default: '600' },
    probes: { type: 'string' },
    out: { type: 'string' },
    /** Only write each question's true-neighbour list ranks (the audits' record) to --out; no searches. */
    'ranks-only': { type: 'boolean', default: false },
    data: { type: 'string', default: DEFAULT_DATA_DIR },
  },
});
const size = Number(values.size);
const offline = createOfflineEmbedder();
const embedder =
  values.embedder === 'hashing'
    ? createHashingEmbedder()
    : values.embedder === 'offline'
      ? offline
      : createProjectedEmbedder(offline);
const corpus = values.embedder === 'hashing' ? createSyntheticCorpus() : createRealCorpus(values.data);
const texts = [...new Set(corpus.texts(Math.ceil(size * 1.05)))].slice(0, size);
const fixture = await embedFixture(embedder, texts);
const questions = corpus.queries(Number(values.questions));
const queryVectors = (await embedder.embed(questions, { purpose: 'query' })).map((v) => {
  const q = Float32Array.from(v);
  let n = 0;
  for (const x of q) n += x * x;
  for (let d = 0; d < q.length; d++) q[d] = (q[d] as number) / Math.sqrt(n || 1);
  return q;
});
const dims = embedder.dimensions;

const store = await openStore({ path: values.db as string });
const agentId = 'agent-0';
const model = embedder.model;
const setup = store.read((sql) => {
  const index = findVectorIndex(sql, model, dims);
  if (!index) throw new Error('no index');
  const partition = findPartition(sql, index.id, agentId);
  if (!partition) throw new Error('no partition');
  const centroids = cachedCentroids(sql, { indexId: index.id, agentId, generation: partition.generation }, dims);
  const rows = listedVectorsBetween(
    sql,
    index.tableName,
    { agentId, model, generation: partition.generation },
    0,
    Number.MAX_SAFE_INTEGER,
    10_000_000,
  );
  const contents = sql.all<{ seq: number; content: string }>(
    raw(
      `SELECT e.seq AS seq, m.content AS content FROM embeddings e JOIN memories m ON m.id = e.source_id
      WHERE e.agent_id = ? AND e.model = ? AND e.source_type = 'memory' AND m.deleted_at IS NULL`,
      agentId,
      model,
    ),
  );
  return { index, partition, centroids, rows, contents };
});
const { partition, centroids, rows } = setup;
if (!centroids) throw new Error('no centroids');
const probes = values.probes ? Number(values.probes) : partition.probes;
console.log(
  `partition: ${partition.vectors} vectors, ${partition.lists} lists, probes ${partition.probes} (est. ${partition.estimatedRecall}, audits ${partition.audits}); listed rows ${rows.length}; using ${probes} probes`,
);
const n = rows.length;
const stored = new Float32Array(n * dims);
const seqs = new Float64Array(n);
const listOf = new Int32Array(n);
rows.forEach((r, i) => {
  stored.set(
    new Float32Array(r.vector.buffer.slice(r.vector.byteOffset, r.vector.byteOffset + r.vector.byteLength)),
    i * dims,
  );
  seqs[i] = r.seq;
  listOf[i] = r.list;
});
const rowOfSeq = new Map<number, number>();
seqs.forEach((s, i) => {
  rowOfSeq.set(s, i);
});
// The fixture row of each stored vector (by content as stored) and how far the stored vector is from it.
const fixtureRowOf = new Map<string, number>();
texts.forEach((t, i) => {
  const s = normalizeForStorage(t);
  if (!fixtureRowOf.has(s)) fixtureRowOf.set(s, i);
});
const fixtureOfSeq = new Map<number, number>();
let mismatched = 0;
for (const { seq, content } of setup.contents) {
  const f = fixtureRowOf.get(content);
  if (f === undefined) continue;
  fixtureOfSeq.set(seq, f);
  const i = rowOfSeq.get(seq);
  if (i === undefined) continue;
  let dot = 0;
  for (let d = 0; d < dims; d++) dot += (stored[i * dims + d] as number) * (fixture.matrix[f * dims + d] as number);
  if (dot < 0.9999) mismatched++;
}
console.log(`stored vectors unlike their fixture row (cos < 0.9999): ${mismatched} of ${setup.contents.length}`);

function scores(matrix: Float32Array, q: Float32Array, count: number): Float32Array {
  const out = new Float32Array(count);
  for (let r = 0; r < count; r++) {
    let s = 0;
    for (let d = 0; d < dims; d++) s += (matrix[r * dims + d] as number) * (q[d] as number);
    out[r] = s;
  }
  return out;
}
function kth(s: Float32Array, k: number): number {
  return Float32Array.from(s).sort().reverse()[k - 1] as number;
}

interface Row {
  q: number;
  listModel: number;
  scan: number;
  vec0: number;
  scanVsFixture: number;
  truthInFresh: number;
  scanCache: boolean;
}
const out: Row[] = [];
if (values['ranks-only']) {
  const all: number[][] = [];
  for (const q of queryVectors) {
    const s = scores(stored, q, n);
    const k10 = kth(s, 10);
    const ranks = listRanks(centroids, q);
    const mine: number[] = [];
    for (let i = 0; i < n; i++) {
      if ((s[i] as number) < k10 - 1e-6) continue;
      const list = listOf[i] as number;
      mine.push(list === 0 ? -1 : (ranks[list - 1] as number));
    }
    all.push(mine);
  }
  writeFileSync(values.out as string, JSON.stringify({ lists: partition.lists, probes: partition.probes, ranks: all }));
  store.close();
  process.exit(0);
}
// Warm the scan cache (its fill starts with the first search).
for (let tries = 0; tries < 600; tries++) {
  const r = await searchMemoryVectorsInSlices(store, {
    agentId,
    model,
    query: queryVectors[0] as Float32Array,
    k: 50,
    sliceRows: 20_000,
    scanCache: { bytes: 512 * 1024 * 1024 },
  });
  if (r?.scanCache) break;
  await new Promise((resolve) => setTimeout(resolve, 200));
}
for (const [qi, q] of queryVectors.entries()) {
  const s = scores(stored, q, n);
  const k10 = kth(s, 10);
  const ranks = listRanks(centroids, q);
  // The list model: every vector as near as the 10th is a true neighbour; any ten of them suffice.
  let truth = 0;
  let found = 0;
  let inFresh = 0;
  for (let i = 0; i < n; i++) {
    if ((s[i] as number) < k10 - 1e-6) continue;
    truth++;
    const list = listOf[i] as number;
    if (list === 0) inFresh++;
    if (list === 0 || (ranks[list - 1] as number) < probes) found++;
  }
  const listModel = Math.min(1, found / Math.min(10, truth));
  const scanned = await searchMemoryVectorsInSlices(store, {
    agentId,
    model,
    query: q,
    k: 50,
    sliceRows: 20_000,
    scanCache: { bytes: 512 * 1024 * 1024 },
  });
  const exact = store.read((sql) => searchMemoryVectors(sql, agentId, model, q, 50));
  const seqOfMemory = new Map(
    store
      .read((sql) =>
        sql.all<{ id: string; seq: number }>(
          raw(
            `SELECT source_id AS id, seq FROM embeddings WHERE agent_id = ? AND model = ? AND source_type = 'memory'
          AND source_id IN (SELECT value FROM json_each(?))`,
            agentId,
            model,
            JSON.stringify([...(scanned?.hits ?? []), ...(exact?.hits ?? [])].map((h) => h.memoryId)),
          ),
        ),
      )
      .map((r) => [r.id, r.seq]),
  );
  const recallOf = (hits: ReadonlyArray<{ memoryId: string }> | undefined) => {
    let ok = 0;
    for (const h of (hits ?? []).slice(0, 10)) {
      const i = rowOfSeq.get(seqOfMemory.get(h.memoryId) ?? -1);
      if (i !== undefined && (s[i] as number) >= k10 - 1e-5) ok++;
    }
    return ok / 10;
  };
  // The bench's truth: the fixture rows of the stored memories.
  const fixtureScores = scores(fixture.matrix, q, texts.length);
  const fk10 = kth(fixtureScores, 10);
  let okF = 0;
  for (const h of (scanned?.hits ?? []).slice(0, 10)) {
    const f = fixtureOfSeq.get(seqOfMemory.get(h.memoryId) ?? -1);
    if (f !== undefined && (fixtureScores[f] as number) >= fk10 - 1e-5) okF++;
  }
  out.push({
    q: qi,
    listModel,
    scan: recallOf(scanned?.hits),
    vec0: recallOf(exact?.hits),
    scanVsFixture: okF / 10,
    truthInFresh: inFresh,
    scanCache: scanned?.scanCache !== undefined,
  });
}
store.close();
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const sd = (xs: number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};
const ranges: Array<[string, number, number]> = [
  ['0–99 (measured, --queries 100)', 0, 100],
  ['100–227 (warm-up, --queries 100)', 100, 228],
  ['0–199 (measured, --queries 200)', 0, 200],
  ['200–327 (warm-up, --queries 200)', 200, 328],
  ['all', 0, out.length],
];
console.log('questions                          n   list model  scan   vec0   scan vs fixture  sd(scan)  scan-cache');
for (const [label, from, to] of ranges) {
  const part = out.slice(from, to);
  if (part.length === 0) continue;
  console.log(
    `${label.padEnd(34)} ${String(part.length).padStart(3)}  ${mean(part.map((r) => r.listModel))
      .toFixed(3)
      .padStart(10)}  ${mean(part.map((r) => r.scan)).toFixed(3)}  ${mean(part.map((r) => r.vec0)).toFixed(3)}  ${mean(
      part.map((r) => r.scanVsFixture),
    )
      .toFixed(3)
      .padStart(15)}  ${sd(part.map((r) => r.scan))
      .toFixed(3)
      .padStart(8)}  ${part.filter((r) => r.scanCache).length}`,
  );
}
const lower = out.filter((r) => r.scan < r.listModel - 1e-9).length;
const higher = out.filter((r) => r.scan > r.listModel + 1e-9).length;
console.log(`questions where the search returned less than the list model: ${lower}, more: ${higher}`);
if (values.out) writeFileSync(values.out, JSON.stringify(out));
