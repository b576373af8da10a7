// Loads realistic memories into a file database and prints remember throughput (single calls and
// rememberMany), keyword recall p50/p95, database size and the longest event-loop stall.
//
//   npm run bench                      # 100,000 memories (default)
//   npm run bench -- --count 20000     # smaller run
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import Database from 'better-sqlite3';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '100000' },
    single: { type: 'string', default: '5000' },
    queries: { type: 'string', default: '500' },
    /** Override config.remember.batchSize (memories per rememberMany transaction). */
    batch: { type: 'string' },
  },
});
const total = Number(values.count);
const singles = Math.min(Number(values.single), total);
const queryCount = Number(values.queries);

const dir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
const path = join(dir, 'bench.db');
const db = new Database(path);
const engine = await createMemoryEngine({
  database: { database: db },
  ...(values.batch ? { config: { remember: { batchSize: Number(values.batch) } } } : {}),
});
const gen = createGenerator(42);
const agentId = 'bench-agent';

// Inputs are generated up front so the event-loop monitor sees the engine's work, not the generator's.
const inputs = Array.from({ length: total }, () => {
  const m = gen.memory();
  return { content: m.content, type: m.type, who: m.who, project: m.project };
});

const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();

// 1. single remember calls
let t0 = performance.now();
for (let i = 0; i < singles; i++) await engine.remember({ agentId, ...(inputs[i] as (typeof inputs)[number]) });
const singleSeconds = (performance.now() - t0) / 1000;

// 2. rememberMany for the rest, in calls of 10,000 inputs (the engine writes 200 per transaction)
const rest = total - singles;
let deduped = 0;
t0 = performance.now();
for (let done = 0; done < rest; ) {
  const n = Math.min(10_000, rest - done);
  const results = await engine.rememberMany({ agentId, memories: inputs.slice(singles + done, singles + done + n) });
  deduped += results.filter((r) => r.deduped).length;
  done += n;
}
const manySeconds = (performance.now() - t0) / 1000;
loop.disable();
const loadStallMs = loop.max / 1e6;

// 3. keyword recall latency
const latencies: number[] = [];
let hits = 0;
for (let i = 0; i < queryCount; i++) {
  const query = gen.query();
  const s = performance.now();
  const { results } = await engine.recall({ agentId, query });
  latencies.push(performance.now() - s);
  if (results.length > 0) hits++;
}
await engine.close();
// Logical size (pages in use), so the number does not depend on when the WAL was last checkpointed.
const bytes = Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
const walBytes = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
db.close();
rmSync(dir, { recursive: true, force: true });

console.log(
  `memories loaded            ${total.toLocaleString('en-US')} (${deduped.toLocaleString('en-US')} deduplicated) into one agent, file database`,
);
console.log(
  `remember (single calls)    ${fmt(singles / singleSeconds, 0)} memories/s  (${singles.toLocaleString('en-US')} calls)`,
);
console.log(
  `rememberMany               ${fmt(rest / manySeconds, 0)} memories/s  (${rest.toLocaleString('en-US')} memories)`,
);
console.log(
  `keyword recall             p50 ${fmt(percentile(latencies, 50), 2)} ms   p95 ${fmt(percentile(latencies, 95), 2)} ms   max ${fmt(Math.max(...latencies), 2)} ms  (${queryCount} queries, ${hits} with results)`,
);
console.log(
  `database size              ${fmt(bytes / 1024 / 1024, 1)} MiB (${fmt(bytes / total, 0)} bytes/memory; WAL file ${fmt(walBytes / 1024 / 1024, 1)} MiB)`,
);
console.log(`longest event-loop stall   ${fmt(loadStallMs, 1)} ms during the load`);
