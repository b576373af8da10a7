// The ivf search's distance bound, A/B in the same conditions: the same index searches on one kept
// file (`bench:recall -- --db`), alternating query by query between the bounded search (nearest
// lists first; every later KNN only asks for vectors within the k-th distance found so far) and
// the unbounded one (every KNN returns its own k nearest, as before). Queries are the hashing
// embedder's synthetic questions (as bench:recall asks them); k = 50, recall's candidate pool at
// limit 10 (`semanticCandidates` caps it at 100 for larger limits).
// Prints process CPU time per search for each, their ratio, and how often both returned the same
// hits in the same order (the bound must never change them).
//   npm run bench:vector-search -- --db /tmp/100k.db [--queries 200] [--agent agent-0] [--k 50]
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { defaultConfig } from '@memory/core';
import { createHashingEmbedder } from '@memory/providers';
import { openStore, searchMemoryVectors } from '@memory/store';
import Database from 'better-sqlite3';
import { fmt, percentile } from './stats.js';
import { createSyntheticCorpus } from './vector-corpus.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string', default: '200' },
    agent: { type: 'string', default: 'agent-0' },
    k: { type: 'string', default: '50' },
  },
});
if (!values.db) throw new Error('--db FILE (a database kept by bench:recall -- --db, hashing embedder) is required');

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
const texts = createSyntheticCorpus().queries(queryCount + 20);
const queries = await embedder.embed(texts);

type Mode = 'bounded' | 'unbounded';
const cpu: Record<Mode, number[]> = { bounded: [], unbounded: [] };
const search = (mode: Mode, q: Float32Array) => {
  const before = process.cpuUsage();
  const found = store.read((sql) =>
    searchMemoryVectors(sql, values.agent as string, model, q, k, { bounded: mode === 'bounded' }),
  );
  const used = process.cpuUsage(before);
  cpu[mode].push((used.user + used.system) / 1000);
  return found;
};
// Warm-up with other questions: page cache, statements, centroids.
for (const q of queries.slice(queryCount)) {
  search('bounded', q);
  search('unbounded', q);
}
cpu.bounded.length = 0;
cpu.unbounded.length = 0;
let same = 0;
let searched = 0;
let layout = '';
queries.slice(0, queryCount).forEach((q, i) => {
  const first: Mode = i % 2 === 0 ? 'bounded' : 'unbounded';
  const a = search(first, q);
  const b = search(first === 'bounded' ? 'unbounded' : 'bounded', q);
  searched += a?.searched ?? 0;
  layout = `${a?.layout} ${a?.probes ?? '-'}/${a?.lists ?? '-'} lists`;
  const ids = (r: typeof a) => (r?.hits ?? []).map((h) => `${h.memoryId}:${h.cosine}`).join(',');
  if (ids(a) === ids(b)) same++;
});
store.close();
const p50 = { bounded: percentile(cpu.bounded, 50), unbounded: percentile(cpu.unbounded, 50) };
console.log(
  `${queryCount} searches each (k ${k}, ${layout}, ~${Math.round(searched / queryCount)} vectors compared), alternating, load avg ${fmt(loadavg()[0] as number, 1)}`,
);
console.log(`  bounded    CPU p50/p95 ${fmt(p50.bounded, 2)} / ${fmt(percentile(cpu.bounded, 95), 2)} ms`);
console.log(`  unbounded  CPU p50/p95 ${fmt(p50.unbounded, 2)} / ${fmt(percentile(cpu.unbounded, 95), 2)} ms`);
console.log(
  `  bounded / unbounded (p50): ${fmt(p50.bounded / p50.unbounded, 2)}; same hits in the same order: ${same}/${queryCount}`,
);
