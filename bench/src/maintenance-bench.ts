// Lifecycle maintenance throughput: loads memories into a file database (with vectors from the
// hashing embedder), times `engine.health` at that size, forgets them all, moves the clock past the
// recover window, and purges them while an event-loop monitor runs. Prints purge rows/s and the
// longest event-loop stall (target ≤ 50 ms).
//
//   npm run bench:maintenance                   # 100,000 memories (default)
//   npm run bench:maintenance -- --count 20000  # smaller run
//   npm run bench:maintenance -- --batch 200    # memories per purge transaction
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createManualClock } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { createHashingEmbedder } from '@memory/providers';
import Database from 'better-sqlite3';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '100000' },
    batch: { type: 'string' },
  },
});
const total = Number(values.count);
const DAY = 86_400_000;

const dir = mkdtempSync(join(tmpdir(), 'memory-maintenance-bench-'));
const path = join(dir, 'bench.db');
const db = new Database(path);
const clock = createManualClock(Date.UTC(2026, 0, 1));
const engine = await createMemoryEngine({
  database: { database: db },
  clock,
  embedder: createHashingEmbedder({ dimensions: 128 }),
  config: values.batch ? { retention: { purgeBatchSize: Number(values.batch) } } : {},
});
const agentId = 'bench-agent';
const gen = createGenerator(7);
const inputs = Array.from({ length: total }, () => {
  const m = gen.memory();
  return { content: m.content, type: m.type, who: m.who, project: m.project, tags: ['bench'] };
});

let t0 = performance.now();
const ids: string[] = [];
for (let done = 0; done < total; done += 10_000) {
  const results = await engine.rememberMany({ agentId, memories: inputs.slice(done, done + 10_000) });
  for (const r of results) if (!r.deduped) ids.push(r.id);
}
const loadSeconds = (performance.now() - t0) / 1000;

// Memory health at this size, per call.
const healthMs: number[] = [];
for (let i = 0; i < 20; i++) {
  const s = performance.now();
  await engine.health({ agentId });
  healthMs.push(performance.now() - s);
}

// Forget them all: the engine's own forget (history row, vectors dropped), one call each.
t0 = performance.now();
for (const id of ids) await engine.forget({ agentId, id, reason: 'bench' });
const forgetSeconds = (performance.now() - t0) / 1000;
clock.advance(31 * DAY);
const due = await engine.maintenance.preview();

// Every write transaction of the purge, timed (wall clock and this process's CPU): under a loaded
// machine the wall time of a transaction stretches far past the CPU it used.
const transactions: Array<{ wallMs: number; cpuMs: number }> = [];
const transaction = db.transaction.bind(db);
(db as { transaction: unknown }).transaction = (fn: (...args: unknown[]) => unknown) => {
  const tx = transaction(fn);
  const timed = (run: () => unknown) => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    try {
      return run();
    } finally {
      const used = process.cpuUsage(cpu);
      transactions.push({ wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 });
    }
  };
  return Object.assign((...args: unknown[]) => timed(() => tx(...args)), {
    immediate: (...args: unknown[]) => timed(() => tx.immediate(...args)),
    deferred: tx.deferred,
    exclusive: tx.exclusive,
    default: tx.default,
  });
};
const loop = monitorEventLoopDelay({ resolution: 1 });
// A timer too: the gap between its ticks is the longest time nothing else could run.
let last = performance.now();
let longestGap = 0;
const ticker = setInterval(() => {
  const now = performance.now();
  longestGap = Math.max(longestGap, now - last);
  last = now;
}, 1);
loop.enable();
t0 = performance.now();
const [report] = await engine.maintenance.run({ task: 'purge', budgetMs: 3_600_000 });
const purgeSeconds = (performance.now() - t0) / 1000;
loop.disable();
clearInterval(ticker);
(db as { transaction: unknown }).transaction = transaction;
const left = (db.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
const longest = transactions.reduce((a, b) => (b.wallMs > a.wallMs ? b : a), { wallMs: 0, cpuMs: 0 });
const cpuSorted = transactions.map((t) => t.cpuMs).sort((a, b) => a - b);
const [load1] = loadavg();
await engine.close();
db.close();
rmSync(dir, { recursive: true, force: true });

const purged = report?.purged?.memories ?? 0;
console.log(
  `memories loaded          ${ids.length.toLocaleString('en-US')} (hashing embedder, 128 dims) in ${fmt(loadSeconds, 1)} s`,
);
console.log(
  `health() at that size    p50 ${fmt(percentile(healthMs, 50), 2)} ms   max ${fmt(Math.max(...healthMs), 2)} ms  (20 calls)`,
);
console.log(
  `forgotten                ${ids.length.toLocaleString('en-US')} in ${fmt(forgetSeconds, 1)} s (one forget() each)`,
);
console.log(`due for purge (preview)  ${(due.purge.forgotten + due.purge.expired).toLocaleString('en-US')}`);
console.log(
  `purge                    ${purged.toLocaleString('en-US')} memories in ${fmt(purgeSeconds, 1)} s = ${fmt(purged / purgeSeconds, 0)} memories/s, ${report?.batches} transactions; ${left} left`,
);
console.log(`  rows touched           ${JSON.stringify(report?.purged)}`);
console.log(
  `longest event-loop stall ${fmt(loop.max / 1e6, 1)} ms (monitor), ${fmt(longestGap, 1)} ms (1 ms timer gap); p99 ${fmt(loop.percentile(99) / 1e6, 1)} ms`,
);
console.log(
  `write transactions       ${transactions.length}; longest ${fmt(longest.wallMs, 1)} ms wall (${fmt(longest.cpuMs, 1)} ms CPU); CPU per transaction p50 ${fmt(percentile(cpuSorted, 50), 1)} ms, p99 ${fmt(percentile(cpuSorted, 99), 1)} ms, max ${fmt(cpuSorted.at(-1) ?? 0, 1)} ms`,
);
console.log(`load average (1 min)     ${fmt(load1 ?? 0, 1)} on ${cpus().length} cores`);
