// Memory health at scale: loads memories into one scope of a file database (created over the last
// 400 days, so the per-day counts have realistic spread), times `engine.health` per call, and in
// the same run times the scope-index walk health used before migration 17 (its maintained counts)
// for the ratio. Then prices the counts' triggers on writes: the same `rememberMany` load into two
// fresh files, one with the triggers dropped, alternating rounds; and plain row INSERTs with and
// without them (the triggers' own cost, without the rest of a remember). Since migration 21 a live
// insert is counted by the text index's insert trigger (raw INSERTs) or by the memory writer once per
// batch (rememberMany), neither of which the `memory_counts_*` names below drop: sections 2 and 3
// now price the expiring and forgotten triggers and the update and delete triggers only.
//
//   npm run bench:health                    # 100,000 memories (default)
//   npm run bench:health -- --count 20000   # smaller run
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createManualClock, createSequentialIds } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { createTestStore } from '@memory/store/testing';
import Database from 'better-sqlite3';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    count: { type: 'string', default: '100000' },
    calls: { type: 'string', default: '200' },
    'write-count': { type: 'string', default: '20000' },
  },
});
const total = Number(values.count);
const calls = Number(values.calls);
const DAY = 86_400_000;
const NOW = Date.UTC(2026, 0, 1);

const dir = mkdtempSync(join(tmpdir(), 'memory-health-bench-'));
const agentId = 'bench-agent';

function inputs(n: number, seed: number) {
  const gen = createGenerator(seed);
  return Array.from({ length: n }, (_, i) => {
    const m = gen.memory();
    return {
      content: `${m.content} (#${i})`,
      type: m.type,
      who: m.who,
      project: m.project,
      createdAt: NOW - Math.floor(((i * 7919) % 400) * DAY + (i % 1000)),
    };
  });
}

function triggerNames(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'memory_counts_%'").all() as Array<{
      name: string;
    }>
  ).map((r) => r.name);
}

async function open(path: string) {
  const db = new Database(path);
  const engine = await createMemoryEngine({
    database: { database: db },
    clock: createManualClock(NOW),
    ids: createSequentialIds(`m${path.length}-`),
  });
  return { db, engine };
}

async function load(engine: Awaited<ReturnType<typeof open>>['engine'], items: ReturnType<typeof inputs>) {
  const t0 = performance.now();
  for (let done = 0; done < items.length; done += 5_000)
    await engine.rememberMany({ agentId, memories: items.slice(done, done + 5_000) });
  return (performance.now() - t0) / 1000;
}

// 1. health() at `total` memories.
const big = await open(join(dir, 'health.db'));
const loadSeconds = await load(big.engine, inputs(total, 7));
// Some recalls, so never-recalled and the per-day counts move like a used store's.
for (const query of ['Alice project deadline', 'decision about the database', 'Bob prefers tea', 'Dana moved']) {
  await big.engine.recall({ agentId, query });
}
const healthMs: number[] = [];
let health = await big.engine.health({ agentId });
for (let i = 0; i < calls; i++) {
  const s = performance.now();
  health = await big.engine.health({ agentId });
  healthMs.push(performance.now() - s);
}
// The walk health did before migration 17, on the same file (read-only statement, same scope).
const walk = big.db.prepare(
  `SELECT embedding_model AS model, count(*) AS count, sum(last_accessed IS NULL) AS never,
     sum(last_accessed < ? OR (last_accessed IS NULL AND created_at < ?)) AS stale
   FROM memories INDEXED BY memories_agent_health WHERE agent_id = ? AND is_deleted = 0
   GROUP BY embedding_model`,
);
const tombstones = big.db.prepare('SELECT count(*) AS n FROM memory_tombstones WHERE agent_id = ?');
const walkMs: number[] = [];
const staleBefore = NOW - 90 * DAY;
for (let i = 0; i < Math.min(calls, 50); i++) {
  const s = performance.now();
  walk.all(staleBefore, staleBefore, agentId);
  tombstones.get(agentId);
  walkMs.push(performance.now() - s);
}
const walked = walk.all(staleBefore, staleBefore, agentId) as Array<{ count: number; never: number; stale: number }>;
const loadAfterHealth = loadavg()[0] ?? 0;
await big.engine.close();
big.db.close();

// 2. What the counts' triggers cost a write: alternating rounds into two fresh files.
const writeCount = Number(values['write-count']);
const withTriggers = await open(join(dir, 'with.db'));
const without = await open(join(dir, 'without.db'));
for (const name of triggerNames(without.db)) without.db.exec(`DROP TRIGGER ${name}`);
const rounds = 6;
const per = Math.floor(writeCount / rounds);
let withSeconds = 0;
let withoutSeconds = 0;
// Alternating which file goes first, so neither always writes into a warmer cache or a quieter moment.
for (let r = 0; r < rounds; r++) {
  const batch = inputs(per, 100 + r);
  if (r % 2 === 0) {
    withSeconds += await load(withTriggers.engine, batch);
    withoutSeconds += await load(without.engine, batch);
  } else {
    withoutSeconds += await load(without.engine, batch);
    withSeconds += await load(withTriggers.engine, batch);
  }
}
for (const f of [withTriggers, without]) {
  await f.engine.close();
  f.db.close();
}

// 3. The triggers alone: plain INSERTs of memory rows (the table's own FTS and posting triggers
// run in both) in one transaction, into migrated in-memory stores with and without the count triggers.
async function insertMicros(drop: boolean): Promise<number> {
  const store = await createTestStore();
  const db = store.database;
  if (drop) for (const name of triggerNames(db)) db.exec(`DROP TRIGGER ${name}`);
  const insert = db.prepare(
    `INSERT INTO memories (id, agent_id, content, normalized_content, content_hash, type, created_at, updated_at)
     VALUES (?, 'a', ?, ?, ?, 'fact', ?, ?)`,
  );
  const n = 20_000;
  const t0 = performance.now();
  db.transaction(() => {
    for (let i = 0; i < n; i++) insert.run(`id${i}`, `note ${i}`, `note ${i}`, `h${i}`, NOW - (i % 400) * DAY, NOW);
  })();
  const micros = ((performance.now() - t0) * 1000) / n;
  store.close();
  return micros;
}
const rawWith: number[] = [];
const rawWithout: number[] = [];
for (let r = 0; r < 5; r++) {
  rawWith.push(await insertMicros(false));
  rawWithout.push(await insertMicros(true));
}
rmSync(dir, { recursive: true, force: true });

const stat = (xs: number[]) =>
  `p50 ${fmt(percentile(xs, 50), 3)} ms   p95 ${fmt(percentile(xs, 95), 3)} ms   max ${fmt(Math.max(...xs), 2)} ms`;
console.log(`memories loaded           ${total.toLocaleString('en-US')} in one scope in ${fmt(loadSeconds, 1)} s`);
console.log(
  `health()                  ${stat(healthMs)}  (${calls} calls; live ${health.live}, never recalled ${health.neverRecalled}, stale ${health.stale})`,
);
console.log(
  `old index walk (SQL only) ${stat(walkMs)}  (live ${walked.reduce((s, w) => s + w.count, 0)}, never ${walked.reduce((s, w) => s + w.never, 0)}, stale ${walked.reduce((s, w) => s + w.stale, 0)})`,
);
console.log(
  `ratio                     health() p50 is ${fmt(percentile(healthMs, 50) / percentile(walkMs, 50), 3)}× the old walk's`,
);
console.log(
  `write cost of the counts  (noisy on a shared machine) rememberMany ${(per * rounds).toLocaleString('en-US')}: ${fmt((per * rounds) / withSeconds, 0)}/s with the triggers, ${fmt((per * rounds) / withoutSeconds, 0)}/s without (${fmt(withSeconds / withoutSeconds, 3)}× the time)`,
);
console.log(
  `count triggers alone      INSERT per memory row: p50 ${fmt(percentile(rawWith, 50), 1)} µs with, ${fmt(percentile(rawWithout, 50), 1)} µs without (5 runs of 20,000 rows each)`,
);
console.log(
  `load average              ${fmt(loadAfterHealth, 1)} after health, ${fmt(loadavg()[0] ?? 0, 1)} at the end`,
);
