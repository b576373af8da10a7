// The engine on PostgreSQL beside the engine on SQLite, through the public API: several engine
// processes on one database remember (rememberMany, 384-d synthetic dense vectors), then recall
// (hybrid: lexical + semantic) with per-query latency, then run host jobs as queue cycles (one worker
// per process). The same processes, corpus and queries run against one SQLite file for comparison.
//
//   npm run bench:postgres-engine                                  # a private server, 100k memories, 100 agents, 4 processes
//   npm run bench:postgres-engine -- --postgres postgresql://...   # an existing server (a database is created and dropped)
//   npm run bench:postgres-engine -- --memories 20000 --queries 200 --jobs 2000
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createManualClock, createManualScheduler } from '@memory/core';
import { createMemoryEngine, type DatabaseOption } from '@memory/engine';
import pg from 'pg';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { createDenseEmbedder } from './dense-embedder.js';
import { mulberry, word, zipfRank } from './pseudo-words.js';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    memories: { type: 'string', default: '100000' },
    agents: { type: 'string', default: '100' },
    processes: { type: 'string', default: '4' },
    queries: { type: 'string', default: '400' },
    jobs: { type: 'string', default: '4000' },
    batch: { type: 'string', default: '50' },
    only: { type: 'string' },
    child: { type: 'string' },
  },
});

const MEMORIES = Number(values.memories);
const AGENTS = Number(values.agents);
const PROCESSES = Number(values.processes);
const QUERIES = Number(values.queries);
const JOBS = Number(values.jobs);
const BATCH = Number(values.batch);
const NOW = Date.UTC(2026, 0, 1);

type Phase = 'write' | 'query' | 'jobs';
interface ChildArgs {
  readonly database: DatabaseOption;
  readonly share: number;
  readonly phase: Phase;
}

function memoryAt(i: number): { agentId: string; content: string } {
  const next = mulberry(i * 7919 + 13);
  const words = Array.from({ length: 12 }, () => word(zipfRank(next)));
  return { agentId: `agent-${i % AGENTS}`, content: `${words.join(' ')} item ${i}` };
}

/** This process's memories (index ≡ share mod processes), as batches of one agent each, agents interleaved. */
function batchesOf(share: number): Array<{ agentId: string; contents: string[] }> {
  const byAgent = new Map<string, string[]>();
  for (let i = share; i < MEMORIES; i += PROCESSES) {
    const m = memoryAt(i);
    const list = byAgent.get(m.agentId) ?? [];
    list.push(m.content);
    byAgent.set(m.agentId, list);
  }
  const batches: Array<{ agentId: string; contents: string[] }> = [];
  for (const [agentId, list] of byAgent)
    for (let i = 0; i < list.length; i += BATCH) batches.push({ agentId, contents: list.slice(i, i + BATCH) });
  const next = mulberry(share + 1);
  return batches
    .map((b) => ({ b, k: next() }))
    .sort((x, y) => x.k - y.k)
    .map((x) => x.b);
}

/** A query: three words of a stored memory, in its agent. */
function queryAt(q: number): { agentId: string; query: string } {
  const next = mulberry(q * 104729 + 7);
  const m = memoryAt(Math.floor(next() * MEMORIES));
  const words = m.content.split(' ').slice(0, 12);
  const pick = () => words[Math.floor(next() * words.length)] ?? '';
  return { agentId: m.agentId, query: `${pick()} ${pick()} ${pick()}` };
}

async function child(args: ChildArgs): Promise<void> {
  const clock = createManualClock(NOW);
  const engine = await createMemoryEngine({
    database: args.database,
    embedder: createDenseEmbedder(384),
    clock,
    scheduler: createManualScheduler(clock),
    // Hints and Dreaming need an LLM (none here); derived work would only queue jobs nobody runs.
    config: { recall: { searchWindowDays: null } },
  });
  let out: unknown;
  if (args.phase === 'write') {
    const t0 = performance.now();
    let written = 0;
    for (const batch of batchesOf(args.share)) {
      await engine.rememberMany({
        agentId: batch.agentId,
        memories: batch.contents.map((content) => ({ content, type: 'fact' })),
      });
      written += batch.contents.length;
    }
    out = { written, seconds: (performance.now() - t0) / 1000 };
  } else if (args.phase === 'query') {
    const recallMs: number[] = [];
    let hits = 0;
    for (let q = args.share; q < QUERIES; q += PROCESSES) {
      const { agentId, query } = queryAt(q);
      const t0 = performance.now();
      const response = await engine.recall({ agentId, query, limit: 10 });
      recallMs.push(performance.now() - t0);
      if (response.results.length > 0) hits++;
    }
    out = { recallMs, hits };
  } else {
    let done = 0;
    engine.jobs.registerHandler({
      jobTypes: ['bench_cycle'],
      handler: async () => {
        done++;
        return null;
      },
    });
    for (let j = args.share; j < JOBS; j += PROCESSES) await engine.jobs.enqueue({ jobType: 'bench_cycle' });
    // Every process drains the shared queue: a worker per process leases, runs and completes.
    process.stdout.write('ready\n');
    await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
    // A stdin left reading would keep this process alive after its work.
    process.stdin.destroy();
    const t0 = performance.now();
    // Until no bench job is left anywhere (runDue also runs the engine's own upkeep jobs).
    for (;;) {
      await engine.runDue();
      const health = (await engine.diagnostics()).queue.find((q) => q.jobType === 'bench_cycle');
      if (!health || health.pending + health.leased === 0) break;
    }
    out = { done, seconds: (performance.now() - t0) / 1000 };
  }
  await engine.close();
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

function runChildren<T>(database: DatabaseOption, phase: Phase): Promise<T[]> {
  const procs = Array.from({ length: PROCESSES }, (_, share) =>
    spawn(
      process.execPath,
      [
        '--conditions=@memory/source',
        '--import',
        'tsx',
        import.meta.filename,
        '--child',
        JSON.stringify({ database, share, phase } satisfies ChildArgs),
        ...process.argv.slice(2).filter((a, i, all) => a !== '--postgres' && all[i - 1] !== '--postgres'),
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  // The jobs phase starts draining only once every process has enqueued its share.
  let ready = 0;
  return Promise.all(
    procs.map(
      (proc) =>
        new Promise<T>((resolve, reject) => {
          let out = '';
          proc.stdout.on('data', (d: Buffer) => {
            out += d.toString();
            while (out.startsWith('ready\n')) {
              out = out.slice('ready\n'.length);
              if (++ready === PROCESSES) for (const p of procs) p.stdin.write('go\n');
            }
          });
          proc.on('exit', (code) =>
            code === 0 ? resolve(JSON.parse(out.trim()) as T) : reject(new Error(`child exited ${code}`)),
          );
        }),
    ),
  );
}

async function measure(label: string, database: DatabaseOption): Promise<void> {
  const t0 = performance.now();
  const writes = await runChildren<{ written: number; seconds: number }>(database, 'write');
  const writeSeconds = (performance.now() - t0) / 1000;
  const written = writes.reduce((a, w) => a + w.written, 0);
  const queries = await runChildren<{ recallMs: number[]; hits: number }>(database, 'query');
  const recallMs = queries.flatMap((q) => q.recallMs);
  const hits = queries.reduce((a, q) => a + q.hits, 0);
  const jobs = await runChildren<{ done: number; seconds: number }>(database, 'jobs');
  const cycles = jobs.reduce((a, j) => a + j.done, 0);
  const jobSeconds = Math.max(...jobs.map((j) => j.seconds));
  console.log(
    `${label.padEnd(28)} remember ${fmt(written / writeSeconds, 0)}/s (${written.toLocaleString('en-US')} in ${fmt(writeSeconds)} s, with start-up)   ` +
      `recall p50/p95 ${fmt(percentile(recallMs, 50))}/${fmt(percentile(recallMs, 95))} ms (${recallMs.length} queries, ${hits} with results)   ` +
      `queue ${fmt(cycles / jobSeconds, 0)} cycles/s (${cycles} jobs)`,
  );
}

async function main(): Promise<void> {
  if (values.child) return child(JSON.parse(values.child) as ChildArgs);
  console.log(
    `${MEMORIES.toLocaleString('en-US')} memories over ${AGENTS} agents, 384-d dense vectors, ${PROCESSES} engine processes, batches of ${BATCH}, ${QUERIES} recalls, ${JOBS} jobs`,
  );
  if (values.only !== 'sqlite') {
    const server = values.postgres ? undefined : await startPostgresServer();
    const base = values.postgres ?? server?.connectionString ?? '';
    const name = `bench_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Pool({ connectionString: base, max: 1 });
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
      await measure(`postgres ${version} (${PROCESSES} proc)`, {
        postgres: { connectionString: url.toString(), maxConnections: 2 },
      });
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      await admin.end();
      await server?.stop();
    }
  }
  if (values.only !== 'postgres') {
    const dir = await mkdtemp(join(tmpdir(), 'engine-bench-'));
    try {
      await measure(`sqlite file (${PROCESSES} proc)`, { path: join(dir, 'memory.db') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

await main();
