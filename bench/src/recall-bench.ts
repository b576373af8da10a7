// Semantic recall at scale, measured for quality and time: neighbour recall@10 against exact cosine
// beside every latency figure. For each embedder (the offline GloVe embedder on real text, the
// hashing embedder on the synthetic corpus, a dense 384-d projection of the offline vectors), each
// size and each layout (one agent; 100 agents sharing the file): load through rememberMany, let the
// engine's background upkeep build the index (runDue until idle), warm up with other questions (an
// ivf partition audits some real queries to set its probe count), then ask real questions through
// the public API with only the semantic channel on (dampening, recency and the score floor off,
// limit 10) and compare the ids with the exact top 10 over that agent's vectors (ties counted).
// Prints p50/p95 latency, the longest event-loop stall while loading, building and querying, the
// completeness the engine reported with its recall estimate, RSS growth and database size.
//   npm run bench:recall                                  # 10k and 100k, all embedders, 1 and 100 agents
//   npm run bench:recall -- --million                     # adds 1M (minutes per configuration)
//   npm run bench:recall -- --sizes 20000 --embedders hashing --layouts 1 --queries 100
//   npm run bench:recall -- --lexical --sizes 100000        # the lexical channel alone (no embedder), real text
//   npm run bench:recall -- --sizes 1000000 --embedders hashing --layouts 1 --db /tmp/1m.db   # keep (or reuse) the file
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type EmbeddingProvider, type MemoryConfigInput, normalizeForStorage } from '@memory/core';
import { createMemoryEngine, type RecallResponse } from '@memory/engine';
import { createHashingEmbedder, createOfflineEmbedder } from '@memory/providers';
import Database from 'better-sqlite3';
import { DEFAULT_DATA_DIR, exitUnlessBenchData } from './bench-data.js';
import { kthScore, neighbourRecall, scoreRows } from './exact-knn.js';
import { type LoopGap, watchLoop } from './loop-watch.js';
import { createProjectedEmbedder } from './projected-embedder.js';
import { fmt, percentile } from './stats.js';
import {
  createRealCorpus,
  createSyntheticCorpus,
  type PackedTexts,
  packTexts,
  REAL_CORPUS_FILES,
  type TextCorpus,
} from './vector-corpus.js';
import { callReplayEmbedder, embedFixture, type VectorFixture } from './vector-fixture.js';

/** The fixture of a run: its texts packed outside the heap (see `packTexts`). */
type BenchFixture = Omit<VectorFixture, 'texts'> & { readonly texts: PackedTexts };

// A full collection on demand, to read what the heap holds after a load (outside any measured phase).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
/** MB of the JavaScript heap in use after a full collection. */
function liveHeapMb(): number {
  collectGarbage();
  return getHeapStatistics().used_heap_size / 1024 / 1024;
}
/** This process's peak resident set (VmHWM), MB; NaN where /proc is not there. */
function peakRssMb(): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * Memory ids (the engine mints 36-character UUIDs) kept outside the heap, 36 bytes per row. Written
 * as latin1, a copy: converting them to 16 bytes of hex (a pattern test, `replaceAll`, a hex write)
 * took 18–45 ms per call of 10,000 on a loaded machine, inside the load's slices.
 */
const ID_BYTES = 36;
function packId(ids: Buffer, row: number, id: string): void {
  if (id.length !== ID_BYTES) throw new Error(`unexpected memory id ${id}`);
  ids.write(id, row * ID_BYTES, ID_BYTES, 'latin1');
}
const unpackId = (ids: Buffer, row: number): string => ids.toString('latin1', row * ID_BYTES, (row + 1) * ID_BYTES);

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    million: { type: 'boolean', default: false },
    embedders: { type: 'string', default: 'offline,hashing,dense' },
    layouts: { type: 'string', default: '1,100' },
    queries: { type: 'string', default: '200' },
    /**
     * Draw the measured questions in the order this seed gives (never one of the warm-up questions,
     * whose order stays the corpus's default): tune on the default order, report on another seed.
     */
    'question-seed': { type: 'string' },
    data: { type: 'string', default: DEFAULT_DATA_DIR },
    /** Measure the lexical channel alone: no embedder, real text, latency only. */
    lexical: { type: 'boolean', default: false },
    /** Lexical: write the texts as turns (with a source type, one minute apart) so neighbouring-turn context runs. */
    turns: { type: 'boolean', default: false },
    /** Repeat each configuration this many times (lexical: alternate A/B runs in the same conditions). */
    repeats: { type: 'string', default: '1' },
    /** JSON merged into the engine configuration, e.g. '{"vectors":{"exactMaxVectors":5000}}'. */
    config: { type: 'string', default: '{}' },
    /**
     * One size and layout: keep the database at this path, or, when the file exists, query it as it
     * is (no load; whatever upkeep is due still runs). Copy a kept file before reusing it: queries
     * write audits and probe counts into it.
     */
    db: { type: 'string' },
    /** Load only (with the stall figures of the load), then stop: no index build, no queries. */
    'load-only': { type: 'boolean', default: false },
    /** Write every event-loop stall over 50 ms (phase, hrtime µs, wall and CPU ms) to this JSON file, to match with a CPU profile. */
    'stall-log': { type: 'string' },
  },
});
if (values.embedders.split(',').some((name) => name !== 'hashing')) {
  // The offline and dense rows embed real text (LoCoMo turns and SciFact abstracts).
  exitUnlessBenchData(values.data, REAL_CORPUS_FILES, 'bench:recall');
}
const sizes = values.sizes.split(',').map(Number);
if (values.million) sizes.push(1_000_000);
const layouts = values.layouts.split(',').map(Number);
const queryCount = Number(values.queries);
const extra = JSON.parse(values.config) as MemoryConfigInput;
const questionSeed = values['question-seed'] === undefined ? undefined : Number(values['question-seed']);

/**
 * The questions: the measured ones first (`queryCount`), then the WARM_UP ones. Without a question
 * seed both come from the corpus's default order, in turn; with one, the warm-up questions are the
 * same and the measured ones come from the seed's order: for the real corpus (a pool of ~2,800
 * questions drawn without replacement) leaving out every warm-up question; for the synthetic one
 * an independent draw from its templates. Leaving out the warm-up's templated questions there
 * left mostly those of the templates with many fillings (a template like "who leads P?" has few,
 * all asked in the warm-up): another mix of questions, not another sample of the same.
 */
function questionsOf(corpus: TextCorpus): string[] {
  const inTurn = corpus.queries(queryCount + WARM_UP);
  if (questionSeed === undefined) return inTurn;
  const warmUp = inTurn.slice(queryCount);
  const seen = new Set(corpus.name === 'real text' ? warmUp : []);
  const measured = corpus.queries(20 * (queryCount + WARM_UP), questionSeed).filter((q) => !seen.has(q));
  if (measured.length < queryCount) throw new Error('not enough questions outside the warm-up ones');
  return [...measured.slice(0, queryCount), ...warmUp];
}

const offline = createOfflineEmbedder();
const EMBEDDERS: Record<string, () => { embedder: EmbeddingProvider; corpus: TextCorpus; label: string }> = {
  offline: () => ({
    embedder: offline,
    corpus: createRealCorpus(values.data),
    label: 'offline GloVe 100-d, real text',
  }),
  hashing: () => ({
    embedder: createHashingEmbedder(),
    corpus: createSyntheticCorpus(),
    label: 'hashing 384-d, synthetic',
  }),
  dense: () => ({
    embedder: createProjectedEmbedder(offline),
    corpus: createRealCorpus(values.data),
    label: 'dense 384-d (projected GloVe + noise), real text',
  }),
};

/** With --turns, the first turn's time (turns follow one minute apart). */
const T_TURNS = Date.UTC(2024, 0, 1);

/** Only the lexical channel runs: no embedder, no hints, no graph, every date searched. */
const LEXICAL_ONLY: MemoryConfigInput = {
  recall: { searchWindowDays: null, channels: { semantic: false, hints: false } },
  traversal: { enabled: false },
  limits: { maxBatchInputs: 100_000 },
};

/** Only the semantic channel decides the order: recall@10 then measures the vector search alone. */
const SEMANTIC_ONLY: MemoryConfigInput = {
  recall: {
    searchWindowDays: null,
    channels: { lexical: false, hints: false },
    dampening: { gravity: false, hub: false, resolution: false, currentness: false },
    recencyBoost: 0,
    minScore: 0,
  },
  traversal: { enabled: false },
  limits: { maxBatchInputs: 100_000 },
};

function merge(a: MemoryConfigInput, b: MemoryConfigInput): MemoryConfigInput {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const base = out[key];
    out[key] =
      base && typeof base === 'object' && value && typeof value === 'object' && !Array.isArray(value)
        ? merge(base as MemoryConfigInput, value as MemoryConfigInput)
        : value;
  }
  return out as MemoryConfigInput;
}

/** Stalls over this long are logged with their phase (--stall-log). */
const STALL_LOG_MS = 50;
const stallLog: Array<LoopGap & { phase: string }> = [];

/**
 * Runs `fn` and reports the longest event-loop stall (wall), the longest synchronous slice (this
 * thread's CPU time between two loop turns, which a shared machine inflates far less) and the
 * longest garbage-collection pause during it, so a stall can be told apart from the bench's own
 * heap (a million texts and ids) being collected.
 */
async function withStallMonitor<T>(
  phase: string,
  fn: () => Promise<T>,
): Promise<{ value: T; stallMs: number; sliceMs: number; gcMs: number }> {
  const watch = watchLoop(STALL_LOG_MS, (gap) => stallLog.push({ phase, ...gap }));
  const value = await fn();
  const stallMs = watch.stop();
  return { value, stallMs, sliceMs: watch.slice() ?? Number.NaN, gcMs: watch.gc() };
}

/** Per phase, the slices over 50 ms of this thread's CPU and the stalls over 50 ms of wall time. */
function overCounts(gaps: ReadonlyArray<LoopGap & { phase: string }>): string {
  const phases = ['load', 'build', 'audit', 'query'].map((phase) => {
    const of = gaps.filter((g) => g.phase === phase);
    return `${phase} ${of.filter((g) => (g.cpuMs ?? 0) > STALL_LOG_MS).length}/${of.length}`;
  });
  return `over ${STALL_LOG_MS} ms (CPU slices/wall stalls): ${phases.join(', ')}`;
}

const mb = (bytes: number) => bytes / 1024 / 1024;

/**
 * Asks `ask` until the semantic channel reports the scan-cache path (or the partition is not
 * eligible: not ivf, cache off), for at most 10 minutes; one agent's layout only. Prints the wait.
 */
async function waitForScanCache(ask: () => Promise<{ response: RecallResponse }>, agents: number): Promise<void> {
  if (agents !== 1) return;
  const started = performance.now();
  for (;;) {
    const search = (await ask()).response.vectorSearch;
    if (search?.layout !== 'ivf' || search.scanCache || extra.vectors?.scanCacheBytes === 0) break;
    if (performance.now() - started > 600_000) {
      console.log('  scan cache: not ready after 10 minutes, measuring the vec0 path');
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const waited = (performance.now() - started) / 1000;
  if (waited > 1) console.log(`  waited ${fmt(waited, 1)} s for the scan cache's fill`);
}
/** Questions asked before measuring (not among the measured ones). */
const WARM_UP = 128;

async function runOne(fixture: BenchFixture, queryTexts: readonly string[], total: number, agents: number) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-recall-bench-'));
  const path = values.db ?? join(dir, 'recall.db');
  const reuse = values.db !== undefined && existsSync(values.db);
  const dims = fixture.dims;
  const rssBefore = process.memoryUsage().rss;
  const replay = callReplayEmbedder(fixture);
  const engine = await createMemoryEngine({
    database: { path },
    embedder: replay,
    config: merge(SEMANTIC_ONLY, extra),
  });
  const agentIds = Array.from({ length: agents }, (_, i) => `agent-${i}`);
  const rowsOf = agentIds.map(() => [] as number[]);
  // A kept file's ids by row, read before the load; a loaded run's are unpacked after the engine
  // closes (see `ids`).
  const rowOfId = new Map<string, number>();

  if (reuse) {
    // The rows behind a kept file's memories, by content as stored (trimmed, whitespace collapsed):
    // real texts keyed as given matched only some rows, and the rest scored as row 0. Where two
    // texts store alike the load kept the first (the second was a duplicate).
    const rowOfText = new Map<string, number>();
    for (let i = 0; i < fixture.texts.length; i++) {
      const stored = normalizeForStorage(fixture.texts.at(i));
      if (!rowOfText.has(stored)) rowOfText.set(stored, i);
    }
    const agentOf = new Map(agentIds.map((id, i) => [id, i]));
    const kept = new Database(path, { readonly: true });
    for (const m of kept.prepare('SELECT id, agent_id, content FROM memories WHERE deleted_at IS NULL').iterate()) {
      const { id, agent_id, content } = m as { id: string; agent_id: string; content: string };
      const row = rowOfText.get(content);
      const a = agentOf.get(agent_id);
      if (row === undefined || a === undefined) continue;
      rowOfId.set(id, row);
      rowsOf[a]?.push(row);
    }
    kept.close();
  }
  // The load streams its corpus: each call's texts are decoded from the packed corpus just before
  // it, and what it returned is kept in typed arrays (a memory's id, 36 bytes, in `ids` at its row;
  // `stored` marks rows written, not deduplicated). The bench's heap then stays the same size
  // through the load, and a major collection's marking (on the main thread, inside the engine's
  // batches) walks the engine's objects, not a million of the bench's texts and results.
  const ids = Buffer.alloc(reuse ? 0 : total * ID_BYTES);
  const stored = new Uint8Array(reuse ? 0 : total);
  const heapBefore = values['load-only'] ? liveHeapMb() : Number.NaN;
  const load = await withStallMonitor('load', async () => {
    const started = performance.now();
    for (let done = reuse ? total : 0; done < total; ) {
      const n = Math.min(10_000, total - done);
      for (let a = 0; a < agents; a++) {
        // Row r belongs to agent r % agents.
        const rows: number[] = [];
        for (let r = done + ((a - (done % agents) + agents) % agents); r < done + n; r += agents) rows.push(r);
        if (rows.length === 0) continue;
        const contents = rows.map((r) => fixture.texts.at(r));
        replay.expect(contents, rows);
        // The engine's call starts on its own turn, not on the one that read the last call's
        // results and prepared this one (a host's calls come from separate requests).
        await nextTurn();
        const results = await engine.rememberMany({
          agentId: agentIds[a] as string,
          memories: contents.map((content) => ({ content })),
        });
        results.forEach((result, i) => {
          if (result.deduped) return;
          const row = rows[i] as number;
          packId(ids, row, result.id);
          stored[row] = 1;
        });
      }
      done += n;
    }
    replay.expect([], []);
    return (performance.now() - started) / 1000;
  });
  if (values['load-only']) {
    const over = stallLog.filter((g) => g.phase === 'load' && (g.cpuMs ?? 0) > STALL_LOG_MS);
    const rss = mb(process.memoryUsage().rss);
    const heapAfter = liveHeapMb();
    console.log(
      `  load only: ${fmt(load.value, 1)} s, longest stall ${fmt(load.stallMs, 0)} ms, longest slice ${fmt(load.sliceMs, 0)} ms CPU, ${over.length} slices over ${STALL_LOG_MS} ms CPU (${over.filter((g) => g.gcMs > 0).length} of them with a GC pause inside), longest GC ${fmt(load.gcMs, 0)} ms, load avg ${fmt(loadavg()[0] as number, 1)}`,
    );
    console.log(
      `  memory: RSS ${fmt(rss, 0)} MB (peak ${fmt(peakRssMb(), 0)} MB), live heap ${fmt(heapBefore, 1)} MB before the load, ${fmt(heapAfter, 1)} MB after (full collections)`,
    );
    await engine.close();
    if (!values.db) rmSync(dir, { recursive: true, force: true });
    if (values['stall-log']) writeFileSync(values['stall-log'], JSON.stringify(stallLog));
    process.exit(0);
  }
  if (!reuse) for (let row = 0; row < total; row++) if (stored[row] === 1) rowsOf[row % agents]?.push(row);
  const build = await withStallMonitor('build', async () => {
    const started = performance.now();
    for (let round = 0; round < 1000; round++) if ((await engine.runDue()).ran === 0) break;
    return (performance.now() - started) / 1000;
  });

  const latencies: number[] = [];
  const cpuMs: number[] = [];
  const responses: Array<{ agent: number; response: RecallResponse }> = [];
  const ask = async (i: number) => {
    const agent = i % agents;
    const response = await engine.recall({
      agentId: agentIds[agent] as string,
      query: queryTexts[i] as string,
      limit: 10,
      explain: true,
    });
    return { agent, response };
  };
  // Warm-up with other questions than the measured ones: statement and page caches, and the real
  // queries an ivf partition audits in the background to set its probe count.
  for (let i = 0; i < WARM_UP; i++) await ask(queryCount + i);
  // A large ivf partition is scanned in the engine's scan cache once its background fill (started
  // by the first search) is done: until then vec0 answers. Wait for it (bounded), asking warm-up
  // questions again, so the measured queries see the steady state; the wait is printed.
  await waitForScanCache(() => ask(queryCount), agents);
  const audit = await withStallMonitor('audit', async () => {
    for (let round = 0; round < 1000; round++) if ((await engine.runDue()).ran === 0) break;
  });
  const query = await withStallMonitor('query', async () => {
    for (let i = 0; i < queryCount; i++) {
      // A turn of the event loop between queries, as between a host's requests (and so the stall
      // monitor samples at all).
      await nextTurn();
      const cpu = process.cpuUsage();
      const r = await ask(i);
      const used = process.cpuUsage(cpu);
      cpuMs.push((used.user + used.system) / 1000);
      latencies.push(r.response.timings.totalMs);
      responses.push(r);
    }
  });
  const rssAfter = process.memoryUsage().rss;
  await engine.close();
  const db = new Database(path, { readonly: true });
  const bytes = Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
  db.close();
  rmSync(dir, { recursive: true, force: true });
  if (!reuse) for (let row = 0; row < total; row++) if (stored[row] === 1) rowOfId.set(unpackId(ids, row), row);

  // Ground truth: the query vectors the engine searched with, against every vector of the agent.
  const queryVectors = await fixture.embedder.embed(queryTexts.slice(0, Math.min(queryCount, queryTexts.length)), {
    purpose: 'query',
  });
  const agentRows = rowsOf.map((rows) => Int32Array.from(rows));
  let recallSum = 0;
  const completeness = new Map<string, number>();
  const estimates: number[] = [];
  const layoutsSeen = new Map<string, number>();
  responses.forEach(({ agent, response }, i) => {
    const q = Float32Array.from(queryVectors[i % queryVectors.length] as Float32Array);
    let norm = 0;
    for (const x of q) norm += x * x;
    for (let d = 0; d < dims; d++) q[d] = (q[d] as number) / Math.sqrt(norm || 1);
    const rows = agentRows[agent] as Int32Array;
    const kth = kthScore(scoreRows(fixture.matrix, dims, rows, q), 10);
    const returned = response.results.map(
      (r) => scoreRows(fixture.matrix, dims, Int32Array.of(rowOfId.get(r.id) ?? 0), q)[0] as number,
    );
    recallSum += neighbourRecall(returned, kth, Math.min(10, rows.length));
    completeness.set(response.vectorCompleteness, (completeness.get(response.vectorCompleteness) ?? 0) + 1);
    if (response.vectorRecall !== undefined) estimates.push(response.vectorRecall);
    const s = response.vectorSearch;
    if (s) {
      const key =
        s.layout === 'ivf'
          ? `ivf ${s.probes}/${s.lists} lists, ~${s.searched} compared${s.scanCache ? `, scan cache (pool ${s.scanCache.pool})` : ''}`
          : s.layout;
      layoutsSeen.set(key, (layoutsSeen.get(key) ?? 0) + 1);
    }
  });
  const mostCommon = [...layoutsSeen].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '-';
  const estimate = estimates.length > 0 ? estimates.reduce((a, b) => a + b, 0) / estimates.length : undefined;
  return {
    recall: recallSum / responses.length,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    cpu50: percentile(cpuMs, 50),
    cpu95: percentile(cpuMs, 95),
    loadSeconds: load.value,
    loadStall: load.stallMs,
    loadSlice: load.sliceMs,
    buildSeconds: build.value,
    buildStall: Math.max(build.stallMs, audit.stallMs),
    buildSlice: Math.max(build.sliceMs, audit.sliceMs),
    queryStall: query.stallMs,
    querySlice: query.sliceMs,
    loadAverage: loadavg()[0] as number,
    gc: Math.max(load.gcMs, build.gcMs, audit.gcMs, query.gcMs),
    completeness: [...completeness].map(([k, n]) => (completeness.size > 1 ? `${k} ${n}` : k)).join(', '),
    estimate,
    layout: mostCommon,
    rssPer100k: (mb(rssAfter - rssBefore) * 100_000) / total,
    dbPer100k: (mb(bytes) * 100_000) / total,
  };
}

/** Lexical channel latency: load `total` real texts over `agents` agents, ask real questions, time recall(). */
async function runLexical(texts: readonly string[], queryTexts: readonly string[], total: number, agents: number) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-recall-bench-'));
  const engine = await createMemoryEngine({
    database: { path: join(dir, 'recall.db') },
    config: merge(LEXICAL_ONLY, extra),
  });
  const agentIds = Array.from({ length: agents }, (_, i) => `agent-${i}`);
  const started = performance.now();
  for (let done = 0; done < total; ) {
    const n = Math.min(10_000, total - done);
    const byAgent = new Map<number, string[]>();
    for (let i = done; i < done + n; i++)
      byAgent.set(i % agents, [...(byAgent.get(i % agents) ?? []), texts[i] as string]);
    for (const [a, rows] of byAgent)
      await engine.rememberMany({
        agentId: agentIds[a] as string,
        memories: rows.map((content, i) =>
          values.turns
            ? { content, source: { type: 'turn', id: `${done}-${i}` }, createdAt: T_TURNS + (done + i) * 60_000 }
            : { content },
        ),
      });
    done += n;
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const ask = (i: number) =>
    engine.recall({ agentId: agentIds[i % agents] as string, query: queryTexts[i] as string, limit: 10 });
  for (let i = 0; i < WARM_UP; i++) await ask(queryCount + i);
  const latencies: number[] = [];
  const lexicalMs: number[] = [];
  for (let i = 0; i < queryCount; i++) {
    await nextTurn();
    const r = await ask(i);
    latencies.push(r.timings.totalMs);
    lexicalMs.push(r.timings.lexicalMs);
  }
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
  return {
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    lexicalP50: percentile(lexicalMs, 50),
    loadSeconds,
  };
}

if (values.lexical) {
  const corpus = createRealCorpus(values.data);
  const biggest = Math.max(...sizes);
  const texts = [...new Set(corpus.texts(Math.ceil(biggest * 1.05)))].slice(0, biggest);
  const queryTexts = questionsOf(corpus);
  console.log(
    `lexical channel only (no embedder), real text, limit 10, ${queryCount} queries; latency = recall() total`,
  );
  console.log('  size       agents  run  p50 ms  p95 ms  lexical p50 ms  load s');
  for (const total of sizes)
    for (const agents of layouts)
      for (let run = 1; run <= Number(values.repeats); run++) {
        const r = await runLexical(texts, queryTexts, Math.min(total, texts.length), agents);
        console.log(
          `  ${total.toLocaleString('en-US').padEnd(10)} ${String(agents).padStart(6)}  ${String(run).padStart(3)}  ${fmt(r.p50, 2).padStart(6)}  ${fmt(r.p95, 2).padStart(6)}  ${fmt(r.lexicalP50, 2).padStart(14)}  ${fmt(r.loadSeconds, 1).padStart(6)}`,
        );
      }
  process.exit(0);
}

console.log(
  `neighbour recall@10 vs exact cosine (ties counted), semantic channel only, limit 10, ${queryCount} queries; latency = recall() total; cpu = process CPU time (all threads) per recall()`,
);
for (const name of values.embedders.split(',')) {
  const setup = EMBEDDERS[name];
  if (!setup) throw new Error(`unknown embedder ${name}`);
  const { embedder, corpus, label } = setup();
  const biggest = Math.max(...sizes);
  const started = performance.now();
  // In their storage form (whitespace collapsed, trimmed): the engine embeds a memory's stored
  // content, so a text that normalizes differently missed the replay and was embedded again; the
  // dense embedder's per-text noise then gave it another vector than the truth's row (10% of the
  // 100k texts: an exact search measured 0.997).
  const texts = packTexts(
    [...new Set(corpus.texts(Math.ceil(biggest * 1.05)).map(normalizeForStorage))].slice(0, biggest),
  );
  const fixture = await embedFixture(embedder, texts);
  const queryTexts = questionsOf(corpus);
  console.log(
    `\n${label}: ${texts.length.toLocaleString('en-US')} distinct texts embedded in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  console.log(
    '  size       agents  per agent  recall@10  p50 ms  p95 ms  cpu p50/p95 ms  reported            layout (most queries)              load s (stall/slice ms)  build s (stall/slice ms)  query stall/slice ms  longest GC ms  RSS MB/100k  DB MB/100k  load avg',
  );
  for (const total of sizes) {
    const sub: BenchFixture = { ...fixture, texts: fixture.texts.head(total) };
    for (const agents of layouts) {
      const logged = stallLog.length;
      const r = await runOne(sub, queryTexts, Math.min(total, texts.length), agents);
      const gaps = stallLog.slice(logged);
      const reported = `${r.completeness}${r.estimate !== undefined ? ` (est. ${r.estimate.toFixed(3)})` : ''}`;
      console.log(
        `  ${total.toLocaleString('en-US').padEnd(10)} ${String(agents).padStart(6)}  ${Math.round(total / agents)
          .toLocaleString('en-US')
          .padStart(
            9,
          )}  ${r.recall.toFixed(3).padStart(9)}  ${fmt(r.p50, 2).padStart(6)}  ${fmt(r.p95, 2).padStart(6)}  ${`${fmt(r.cpu50, 1)}/${fmt(r.cpu95, 1)}`.padStart(14)}  ${reported.padEnd(18)}  ${r.layout.padEnd(33)}  ${`${fmt(r.loadSeconds, 1)} (${fmt(r.loadStall, 0)}/${fmt(r.loadSlice, 0)})`.padStart(23)}  ${`${fmt(r.buildSeconds, 1)} (${fmt(r.buildStall, 0)}/${fmt(r.buildSlice, 0)})`.padStart(24)}  ${`${fmt(r.queryStall, 0)}/${fmt(r.querySlice, 0)}`.padStart(20)}  ${fmt(r.gc, 0).padStart(13)}  ${fmt(r.rssPer100k, 0).padStart(11)}  ${fmt(r.dbPer100k, 0).padStart(10)}  ${fmt(r.loadAverage, 1).padStart(8)}`,
      );
      console.log(`  ${overCounts(gaps)}`);
    }
  }
}
if (values['stall-log']) writeFileSync(values['stall-log'], JSON.stringify(stallLog));
