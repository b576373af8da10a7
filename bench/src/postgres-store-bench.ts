// The store on PostgreSQL beside SQLite, at the store level (bench:postgres-engine measures the
// engine): remember throughput with several processes writing one database, then lexical and vector
// search latency per query, over many agents. Synthetic texts (Zipf-distributed pseudo-words) and
// random 384-d vectors.
//
//   npm run bench:postgres-store                                   # a private server, 100k memories, 100 agents, 4 processes
//   npm run bench:postgres-store -- --postgres postgresql://...    # an existing server (a database is created and dropped)
//   npm run bench:postgres-store -- --memories 20000 --queries 100 # smaller
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSequentialIds, type IdGenerator } from '@memory/core';
import {
  createMemories,
  createMemoriesProgram,
  type MemoryWriteDeps,
  type NewMemory,
  prepareContent,
  queryTerms,
  runWriterProgram,
  searchMemoriesLexical,
  searchMemoriesLexicalProgram,
} from '@memory/store';
import { openPostgresStore, searchPostgresVectors } from '@memory/store/postgres';
import { createTestStore } from '@memory/store/testing';
import pg from 'pg';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { mulberry, word, zipfRank } from './pseudo-words.js';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    memories: { type: 'string', default: '100000' },
    agents: { type: 'string', default: '100' },
    processes: { type: 'string', default: '4' },
    queries: { type: 'string', default: '200' },
    dims: { type: 'string', default: '384' },
    batch: { type: 'string', default: '50' },
    child: { type: 'string' },
  },
});

const MEMORIES = Number(values.memories);
const AGENTS = Number(values.agents);
const PROCESSES = Number(values.processes);
const QUERIES = Number(values.queries);
const DIMS = Number(values.dims);
const BATCH = Number(values.batch);
const NOW = Date.UTC(2026, 0, 1);
const MODEL = 'bench-random';

function memoryAt(i: number): { agentId: string; text: string; vector: Float32Array } {
  const next = mulberry(i * 7919 + 13);
  const words = Array.from({ length: 12 }, () => word(zipfRank(next)));
  const vector = Float32Array.from({ length: DIMS }, () => next() * 2 - 1);
  return { agentId: `agent-${i % AGENTS}`, text: `${words.join(' ')} item ${i}`, vector };
}

function newMemory(i: number): NewMemory {
  const m = memoryAt(i);
  return {
    agentId: m.agentId,
    content: prepareContent(m.text),
    type: 'fact',
    importance: 0.5,
    audit: {},
    embedding: { model: MODEL, vector: m.vector },
  };
}

function deps(ids: IdGenerator): MemoryWriteDeps {
  return { ids, vectorAvailable: false, inlineEntityLinking: false };
}

/** Batches of one agent's memories, for the memory indices `index % processes === share`. */
function batchesOf(share: number, processes: number): NewMemory[][] {
  const byAgent = new Map<string, NewMemory[]>();
  for (let i = share; i < MEMORIES; i += processes) {
    const memory = newMemory(i);
    const list = byAgent.get(memory.agentId) ?? [];
    list.push(memory);
    byAgent.set(memory.agentId, list);
  }
  const batches: NewMemory[][] = [];
  for (const list of byAgent.values())
    for (let i = 0; i < list.length; i += BATCH) batches.push(list.slice(i, i + BATCH));
  // Interleave agents, as a server's traffic would.
  return batches.sort((a, b) => (a[0]?.content.hash ?? '').localeCompare(b[0]?.content.hash ?? ''));
}

function queryAt(q: number): { agentId: string; tokens: string[]; vector: Float32Array } {
  const next = mulberry(q * 104729 + 7);
  const m = memoryAt(Math.floor(next() * MEMORIES));
  const words = m.text.split(' ').slice(0, 12);
  const tokens = [
    ...queryTerms([words[Math.floor(next() * 12)] ?? '', words[Math.floor(next() * 12)] ?? ''], 8).tokens,
  ];
  const vector = Float32Array.from(m.vector, (x) => x + (next() - 0.5) * 0.2);
  return { agentId: m.agentId, tokens, vector };
}

const lexical = (q: ReturnType<typeof queryAt>) =>
  ({ agentId: q.agentId, terms: { tokens: q.tokens }, matching: 'any', filters: {}, now: NOW, limit: 10 }) as const;

async function child(args: { url: string; share: number; phase: 'write' | 'query' }): Promise<void> {
  const store = await openPostgresStore({ target: { connectionString: args.url, maxConnections: 2 } });
  if (args.phase === 'write') {
    const batches = batchesOf(args.share, PROCESSES);
    const writer = deps(createSequentialIds(`p${args.share}-`));
    const t0 = performance.now();
    let written = 0;
    for (const batch of batches) {
      const agentId = batch[0]?.agentId ?? '';
      await runWriterProgram(store, { agentIds: [agentId] }, (target) =>
        createMemoriesProgram(target, writer, batch, NOW),
      );
      written += batch.length;
    }
    process.stdout.write(JSON.stringify({ written, seconds: (performance.now() - t0) / 1000 }));
  } else {
    const lexicalMs: number[] = [];
    const vectorMs: number[] = [];
    for (let q = args.share; q < QUERIES; q += PROCESSES) {
      const query = queryAt(q);
      let t0 = performance.now();
      await store.read(() => searchMemoriesLexicalProgram(lexical(query) as never));
      lexicalMs.push(performance.now() - t0);
      t0 = performance.now();
      await store.read(() =>
        searchPostgresVectors({
          agentId: query.agentId,
          model: MODEL,
          query: query.vector,
          k: 10,
          pgvector: store.vector.available,
        }),
      );
      vectorMs.push(performance.now() - t0);
    }
    process.stdout.write(JSON.stringify({ lexicalMs, vectorMs }));
  }
  await store.close();
}

function runChildren<T>(url: string, phase: 'write' | 'query'): Promise<T[]> {
  return Promise.all(
    Array.from(
      { length: PROCESSES },
      (_, share) =>
        new Promise<T>((resolve, reject) => {
          const proc = spawn(
            process.execPath,
            [
              '--conditions=@memory/source',
              '--import',
              'tsx',
              import.meta.filename,
              '--child',
              JSON.stringify({ url, share, phase }),
              ...process.argv.slice(2).filter((a, i, all) => a !== '--postgres' && all[i - 1] !== '--postgres'),
            ],
            { stdio: ['ignore', 'pipe', 'inherit'] },
          );
          let out = '';
          proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
          proc.on('exit', (code) =>
            code === 0 ? resolve(JSON.parse(out) as T) : reject(new Error(`child exited ${code}`)),
          );
        }),
    ),
  );
}

async function onSqlite(): Promise<void> {
  const store = await createTestStore({ vectorExtension: 'off' });
  const writer = deps(createSequentialIds('s-'));
  const batches = batchesOf(0, 1);
  const t0 = performance.now();
  for (const batch of batches) store.write((sql) => createMemories(sql, writer, batch, NOW));
  const seconds = (performance.now() - t0) / 1000;
  const lexicalMs: number[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const query = queryAt(q);
    const t1 = performance.now();
    store.read((sql) => searchMemoriesLexical(sql, lexical(query) as never));
    lexicalMs.push(performance.now() - t1);
  }
  console.log(
    `sqlite (1 process)     remember ${fmt(MEMORIES / seconds, 0)}/s   lexical p50/p95 ${fmt(percentile(lexicalMs, 50))}/${fmt(percentile(lexicalMs, 95))} ms`,
  );
  store.close();
}

async function main(): Promise<void> {
  if (values.child) return child(JSON.parse(values.child) as { url: string; share: number; phase: 'write' | 'query' });
  const server = values.postgres ? undefined : await startPostgresServer();
  const base = values.postgres ?? server?.connectionString ?? '';
  const name = `bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Pool({ connectionString: base, max: 1 });
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  try {
    const setup = await openPostgresStore({ target: { connectionString: url.toString() } });
    const vector = setup.vector;
    await setup.close();
    const version = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0]?.server_version;
    console.log(
      `${MEMORIES.toLocaleString('en-US')} memories over ${AGENTS} agents, ${DIMS}-d vectors, ${PROCESSES} processes, batches of ${BATCH}; PostgreSQL ${version}, pgvector ${vector.available ? vector.version : `off (${vector.reason})`}`,
    );
    const t0 = performance.now();
    const writes = await runChildren<{ written: number; seconds: number }>(url.toString(), 'write');
    const seconds = (performance.now() - t0) / 1000;
    const written = writes.reduce((a, w) => a + w.written, 0);
    const queries = await runChildren<{ lexicalMs: number[]; vectorMs: number[] }>(url.toString(), 'query');
    const lexicalMs = queries.flatMap((q) => q.lexicalMs);
    const vectorMs = queries.flatMap((q) => q.vectorMs);
    console.log(
      `postgres (${PROCESSES} processes) remember ${fmt(written / seconds, 0)}/s (${written.toLocaleString('en-US')} in ${fmt(seconds)} s, with start-up)   ` +
        `lexical p50/p95 ${fmt(percentile(lexicalMs, 50))}/${fmt(percentile(lexicalMs, 95))} ms   ` +
        `vector p50/p95 ${fmt(percentile(vectorMs, 50))}/${fmt(percentile(vectorMs, 95))} ms (${queries.length} processes querying at once)`,
    );
    await onSqlite();
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    await server?.stop();
  }
}

await main();
