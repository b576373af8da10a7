// Recall over HTTP at scale: requests per second and p50/p95 latency of `POST /api/recall` with 10
// concurrent clients against 100k memories in one agent's scope (real text, the offline GloVe
// embedder, default hybrid recall), beside the same questions asked in process and by one HTTP client,
// so the HTTP layer's share is visible. The clients run in a worker thread; the server is
// `serveHttp` on 127.0.0.1 with the per-token rate limit off. The load average is printed before and
// after: the machine is shared, and the figures move with it.
//   npm run bench:http
//   npm run bench:http -- --memories 20000 --clients 4 --seconds 10
//   npm run bench:http -- --agents 100             # 100 agents of 1,000 memories (a multi-tenant server)
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createMemoryEngine } from '@memory/engine';
import { serveHttp } from '@memory/http';
import { createOfflineEmbedder } from '@memory/providers';
import { fmt, percentile } from './stats.js';
import { createRealCorpus } from './vector-corpus.js';

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '100000' },
    /** Spread the memories over this many agents (one token covers them all; clients rotate agents). */
    agents: { type: 'string', default: '1' },
    clients: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '20' },
    queries: { type: 'string', default: '500' },
    data: { type: 'string', default: join(import.meta.dirname, '..', '..', '..', 'shared', 'data') },
  },
});
const total = Number(values.memories);
const clients = Number(values.clients);
const durationMs = Number(values.seconds) * 1000;
const agents = Array.from({ length: Number(values.agents) }, (_, i) => `agent-${i}`);

const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');

interface LoadResult {
  latencies: number[];
  statuses: Record<string, number>;
  elapsedMs: number;
}

function runClients(
  url: string,
  token: string,
  queries: string[],
  agentIds: string[],
  concurrency: number,
  floor = false,
): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./http-load-client.mjs', import.meta.url), {
      workerData: { url, token, queries, agents: agentIds, clients: concurrency, durationMs, warmup: 50, floor },
    });
    worker.once('message', (result: LoadResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', reject);
  });
}

function report(label: string, latencies: number[], elapsedMs: number): void {
  const rps = latencies.length / (elapsedMs / 1000);
  console.log(
    `  ${label.padEnd(28)} ${String(latencies.length).padStart(7)} req  ${fmt(rps).padStart(8)} req/s  p50 ${fmt(
      percentile(latencies, 50),
      2,
    ).padStart(7)} ms  p95 ${fmt(percentile(latencies, 95), 2).padStart(7)} ms`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'memory-http-bench-'));
try {
  console.log(`load average (1, 5, 15 min) at start: ${load()}  (2 cores, shared machine)`);
  const corpus = createRealCorpus(values.data);
  const texts = corpus.texts(total);
  const queries = corpus.queries(Number(values.queries));
  const engine = await createMemoryEngine({
    database: { path: join(dir, 'http.db') },
    embedder: createOfflineEmbedder(),
  });
  let started = performance.now();
  const perAgent = Math.ceil(texts.length / agents.length);
  for (const [a, agentId] of agents.entries()) {
    const own = texts.slice(a * perAgent, (a + 1) * perAgent);
    for (let i = 0; i < own.length; i += 5000) {
      await engine.rememberMany({ agentId, memories: own.slice(i, i + 5000).map((content) => ({ content })) });
    }
  }
  for (let round = 0; round < 1000; round++) if ((await engine.runDue()).ran === 0) break;
  const stored = (await engine.list({ agentId: agents[0] ?? '', limit: 1 })).memories.length > 0;
  const layout = agents.length === 1 ? 'one agent' : `${agents.length} agents of ${fmt(perAgent, 0)}`;
  console.log(
    `${fmt(total, 0)} memories (real text, offline GloVe 100-d) in ${layout}, loaded and indexed in ${fmt(
      (performance.now() - started) / 1000,
    )} s${stored ? '' : ' (NOTHING STORED)'}`,
  );
  console.log(`recall: default hybrid config, limit 10; ${queries.length} real questions in rotation`);
  console.log('  (HTTP floor: GET /api/memories?limit=1, the cheapest authenticated read)');

  // In process, one caller: the engine's own latency on these questions.
  const inProcess: number[] = [];
  const agentOf = (i: number): string => agents[i % agents.length] ?? '';
  for (const [i, query] of queries.slice(0, 50).entries())
    await engine.recall({ agentId: agentOf(i), query, limit: 10 });
  started = performance.now();
  for (const [i, query] of queries.entries()) {
    const t0 = performance.now();
    await engine.recall({ agentId: agentOf(i), query, limit: 10 });
    inProcess.push(performance.now() - t0);
  }
  report('in process, 1 caller', inProcess, performance.now() - started);

  const server = await serveHttp({ engine, port: 0, rateLimit: false });
  const { token } = await engine.tokens.create({ agents, permissions: ['read'] });
  const floor = await runClients(server.url, token, queries, agents, 1, true);
  report('HTTP floor, 1 client', floor.latencies, floor.elapsedMs);
  const one = await runClients(server.url, token, queries, agents, 1);
  report('HTTP, 1 client', one.latencies, one.elapsedMs);
  const many = await runClients(server.url, token, queries, agents, clients);
  report(`HTTP, ${clients} concurrent clients`, many.latencies, many.elapsedMs);
  const statuses = { ...floor.statuses };
  for (const [status, n] of Object.entries(one.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  for (const [status, n] of Object.entries(many.statuses)) statuses[status] = (statuses[status] ?? 0) + n;
  console.log(
    `  statuses: ${JSON.stringify(statuses)}; ${fmt(durationMs / 1000, 0)} s per HTTP run after 50 warm-up requests`,
  );
  console.log(`load average (1, 5, 15 min) at end: ${load()}`);
  await server.close();
  await engine.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
