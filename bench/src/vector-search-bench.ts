// The ivf search, A/B in the same conditions: the same index searches on one kept file
// (`bench:recall -- --db`), alternating query by query between two ways of reading the probed lists.
// `--compare scan` (default): the scan cache (int8 scores by the WebAssembly kernel, the best pool
// rescored exactly) against vec0's bounded KNNs; the cache is filled first (the fill's time, CPU
// and the RSS after it are printed). `--compare bound`: vec0's bounded search (nearest lists first;
// every later KNN only asks for vectors within the k-th distance found so far) against the unbounded
// one (every KNN returns its own k nearest). Queries are the hashing embedder's synthetic questions
// (as bench:recall asks them); k = 50, recall's candidate pool at limit 10 (`semanticCandidates`
// caps it at 100 for larger limits). Prints process CPU time per search for each, their ratio, how
// often both returned the same hits in the same order, and (scan) the top-10 overlap.
//   npm run bench:vector-search -- --db /tmp/100k.db [--queries 200] [--agent agent-0] [--k 50] [--compare scan|bound]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { defaultConfig } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import {
  openStore,
  scanCacheIdle,
  scanCacheOf,
  searchMemoryVectors,
  searchMemoryVectorsInSlices,
  type VectorSearch,
} from '@memory/store';
import Database from 'better-sqlite3';
import { watchLoop } from './loop-watch.js';
import { fmt, percentile } from './stats.js';
import { createSyntheticCorpus } from './vector-corpus.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string', default: '200' },
    agent: { type: 'string', default: 'agent-0' },
    k: { type: 'string', default: '50' },
    compare: { type: 'string', default: 'scan' },
  },
});
if (!values.db) throw new Error('--db FILE (a database kept by bench:recall -- --db, hashing embedder) is required');
if (values.compare !== 'scan' && values.compare !== 'bound') throw new Error('--compare is scan or bound');

const kept = new Database(values.db, { readonly: true });
const { model, dimensions } = kept.prepare('SELECT model, dimensions FROM vector_indexes').get() as {
  model: string;
  dimensions: number;
};
kept.close();
const embedder = createHashingEmbedder();
if (embedder.model !== model || embedder.dimensions !== dimensions)
  throw new Error(`the file's index is ${model}/${dimensions}, not the hashing embedder's`);

// Read-only use: a search writes nothing but its audit notes, which it keeps in memory.
const store = await openStore({ path: values.db, config: defaultConfig.store });
const queryCount = Number(values.queries);
const k = Number(values.k);
const agentId = values.agent as string;
const texts = createSyntheticCorpus().queries(queryCount + 20);
const queries = await embedder.embed(texts);
const scanCache = { bytes: defaultConfig.vectors.scanCacheBytes };

const modes = values.compare === 'scan' ? (['scan', 'vec0'] as const) : (['bounded', 'unbounded'] as const);
type Mode = (typeof modes)[number];
const cpu = new Map<Mode, number[]>(modes.map((m) => [m, []]));
const search = async (mode: Mode, q: Float32Array): Promise<VectorSearch | undefined> => {
  const before = process.cpuUsage();
  const found =
    mode === 'scan' || mode === 'vec0'
      ? await searchMemoryVectorsInSlices(store, {
          agentId,
          model,
          query: q,
          k,
          sliceRows: Number.POSITIVE_INFINITY,
          ...(mode === 'scan' ? { scanCache } : {}),
        })
      : store.read((sql) => searchMemoryVectors(sql, agentId, model, q, k, { bounded: mode === 'bounded' }));
  const used = process.cpuUsage(before);
  cpu.get(mode)?.push((used.user + used.system) / 1000);
  return found;
};

if (values.compare === 'scan') {
  const started = performance.now();
  const before = process.cpuUsage();
  // The first search (vec0, unsliced here) starts the fill; the watch covers the fill's slices.
  await search('scan', queries[0] as Float32Array);
  const watch = watchLoop(50, () => {});
  await scanCacheIdle(store);
  const stall = watch.stop();
  const used = process.cpuUsage(before);
  const stats = scanCacheOf(store).stats();
  console.log(
    `scan cache fill: ${fmt((performance.now() - started) / 1000, 1)} s wall, ${fmt((used.user + used.system) / 1e6, 1)} s CPU, ${fmt(stats.bytes / 1024 / 1024, 0)} MiB held, RSS ${fmt(process.memoryUsage().rss / 1024 / 1024, 0)} MB, longest stall ${fmt(stall, 0)} ms (slice ${fmt(watch.slice() ?? Number.NaN, 0)} ms CPU, longest GC ${fmt(watch.gc(), 0)} ms), load avg ${fmt(loadavg()[0] as number, 1)}`,
  );
}
// Warm-up with other questions: page cache, statements, centroids.
for (const q of queries.slice(queryCount)) for (const mode of modes) await search(mode, q);
for (const m of modes) (cpu.get(m) as number[]).length = 0;
let same = 0;
let sameCosines = 0;
let overlap = 0;
let searched = 0;
let layout = '';
let scanned = 0;
for (const [i, q] of queries.slice(0, queryCount).entries()) {
  const [first, second] = i % 2 === 0 ? modes : ([modes[1], modes[0]] as const);
  const a = await search(first, q);
  const b = await search(second, q);
  searched += a?.searched ?? 0;
  layout = `${a?.layout} ${a?.probes ?? '-'}/${a?.lists ?? '-'} lists`;
  if (a?.scanCache || b?.scanCache) scanned++;
  const ids = (r: typeof a) => (r?.hits ?? []).map((h) => `${h.memoryId}:${h.cosine}`).join(',');
  if (ids(a) === ids(b)) same++;
  const cosines = (r: typeof a) => (r?.hits ?? []).map((h) => h.cosine).join(',');
  if (cosines(a) === cosines(b)) sameCosines++;
  const top = new Set((a?.hits ?? []).slice(0, 10).map((h) => h.memoryId));
  overlap += (b?.hits ?? []).slice(0, 10).filter((h) => top.has(h.memoryId)).length / Math.max(1, top.size);
}
store.close();
const [m1, m2] = modes;
const p50 = (m: Mode) => percentile(cpu.get(m) as number[], 50);
console.log(
  `${queryCount} searches each (k ${k}, ${layout}, ~${Math.round(searched / queryCount)} vectors compared), alternating, load avg ${fmt(loadavg()[0] as number, 1)}`,
);
for (const m of modes)
  console.log(`  ${m.padEnd(10)} CPU p50/p95 ${fmt(p50(m), 2)} / ${fmt(percentile(cpu.get(m) as number[], 95), 2)} ms`);
console.log(
  `  ${m1} / ${m2} (p50): ${fmt(p50(m1) / p50(m2), 2)}; same hits in the same order: ${same}/${queryCount}, same distances rank by rank: ${sameCosines}/${queryCount}; top-10 overlap ${fmt(overlap / queryCount, 3)}${values.compare === 'scan' ? `; scan cache used in ${scanned}/${queryCount}` : ''}`,
);
