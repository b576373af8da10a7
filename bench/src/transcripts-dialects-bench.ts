// Transcripts on PostgreSQL beside SQLite, through the public engine API in one process: appends
// (turns/s), transcript search latency (p50/p95) over many agents, and whether both dialects return
// the same hits with the same scores (they rank from the same per-agent postings with the same code).
//
//   npm run bench:transcripts-dialects                                  # a private server
//   npm run bench:transcripts-dialects -- --postgres postgresql://...   # an existing server (a database is created and dropped)
//   npm run bench:transcripts-dialects -- --sessions 2000 --turns 10 --agents 20 --queries 300
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createManualClock, createManualScheduler } from '@memory/core';
import { createMemoryEngine, type DatabaseOption, type MemoryEngine } from '@memory/engine';
import pg from 'pg';
import { startPostgresServer } from '../../scripts/postgres-server.mjs';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    postgres: { type: 'string' },
    sessions: { type: 'string', default: '1000' },
    turns: { type: 'string', default: '10' },
    agents: { type: 'string', default: '20' },
    queries: { type: 'string', default: '200' },
  },
});
const SESSIONS = Number(values.sessions);
const TURNS = Number(values.turns);
const AGENTS = Number(values.agents);
const QUERIES = Number(values.queries);

/** A seeded generator: both dialects see the same corpus and queries. */
function mulberry(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const WORDS = Array.from({ length: 2000 }, (_, i) => `w${(i * 7919) % 10007}`);
const word = (r: () => number) => WORDS[Math.floor(r() ** 2 * WORDS.length)] as string;
const sentence = (r: () => number, n: number) => Array.from({ length: n }, () => word(r)).join(' ');

interface Result {
  readonly name: string;
  readonly appendPerSecond: number;
  readonly p50: number;
  readonly p95: number;
  readonly hits: unknown[];
}

async function measure(name: string, database: DatabaseOption): Promise<Result> {
  const clock = createManualClock(Date.UTC(2026, 0, 1));
  const engine: MemoryEngine = await createMemoryEngine({ database, clock, scheduler: createManualScheduler(clock) });
  try {
    const r = mulberry(42);
    const started = performance.now();
    for (let s = 0; s < SESSIONS; s++) {
      const agentId = `agent-${s % AGENTS}`;
      const turns = Array.from({ length: TURNS }, (_, t) => ({
        role: t % 2 ? ('assistant' as const) : ('user' as const),
        content: sentence(r, 8 + Math.floor(r() * 24)),
      }));
      await engine.transcripts.append({ agentId, sessionKey: `s-${s}`, turns });
      await engine.transcripts.complete({ agentId, sessionKey: `s-${s}` });
    }
    const appendPerSecond = (SESSIONS * TURNS) / ((performance.now() - started) / 1000);
    const q = mulberry(7);
    const times: number[] = [];
    const hits: unknown[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const query = sentence(q, 1 + Math.floor(q() * 3));
      const t0 = performance.now();
      hits.push(await engine.transcripts.search({ agentId: `agent-${i % AGENTS}`, query, limit: 10 }));
      times.push(performance.now() - t0);
    }
    return { name, appendPerSecond, p50: percentile(times, 50), p95: percentile(times, 95), hits };
  } finally {
    await engine.close();
  }
}

const results: Result[] = [];
const dir = await mkdtemp(join(tmpdir(), 'transcripts-bench-'));
try {
  results.push(await measure('sqlite file', { path: join(dir, 'memory.db') }));
} finally {
  await rm(dir, { recursive: true, force: true });
}
const server = values.postgres ? undefined : await startPostgresServer();
const base = values.postgres ?? server?.connectionString ?? '';
const name = `bench_${randomBytes(6).toString('hex')}`;
const admin = new pg.Pool({ connectionString: base, max: 1 });
// The private server stops at the end: its idle connection's error is expected then.
admin.on('error', () => undefined);
await admin.query(`CREATE DATABASE ${name}`);
const url = new URL(base);
url.pathname = `/${name}`;
try {
  results.push(await measure('postgres server', { postgres: { connectionString: url.toString() } }));
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await server?.stop();
}

console.log(`${SESSIONS} sessions × ${TURNS} turns over ${AGENTS} agents; ${QUERIES} searches (limit 10)`);
console.log('| store | append turns/s | search p50 ms | search p95 ms |');
console.log('| --- | --- | --- | --- |');
for (const r of results)
  console.log(`| ${r.name} | ${fmt(r.appendPerSecond, 0)} | ${fmt(r.p50, 2)} | ${fmt(r.p95, 2)} |`);
const [sqlite, postgres] = results;
const same = JSON.stringify(sqlite?.hits) === JSON.stringify(postgres?.hits);
console.log(`same hits, order and scores on both dialects: ${same ? 'yes' : 'NO'}`);
