// Working notes at the scale: one agent with 10,000 memories and 2,000 notes linked to 500
// host objects (plus another agent's 2,000 notes in the same file), vectors from the hashing
// embedder. Times notes.search (text, text + entity, entity only), notes.list by entity, and recall
// with and without notes, round-robin in the same run; prints p50/p95 per call and the load average.
//
//   npm run bench:notes                          # 10,000 memories, 2,000 notes (default)
//   npm run bench:notes -- --notes 5000 --runs 300
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createManualClock } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { createHashingEmbedder } from '@memory/providers';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    memories: { type: 'string', default: '10000' },
    notes: { type: 'string', default: '2000' },
    objects: { type: 'string', default: '500' },
    runs: { type: 'string', default: '200' },
  },
});
const memoryCount = Number(values.memories);
const noteCount = Number(values.notes);
const objects = Number(values.objects);
const runs = Number(values.runs);

const dir = mkdtempSync(join(tmpdir(), 'memory-notes-bench-'));
const clock = createManualClock(Date.UTC(2026, 0, 1));
const engine = await createMemoryEngine({
  database: { path: join(dir, 'bench.db') },
  clock,
  embedder: createHashingEmbedder({ dimensions: 128 }),
});
const agentId = 'bench-agent';
const gen = createGenerator(11);

let t0 = performance.now();
const memories = Array.from({ length: memoryCount }, () => {
  const m = gen.memory();
  return { content: m.content, type: m.type, who: m.who, project: m.project };
});
for (let done = 0; done < memoryCount; done += 5000)
  await engine.rememberMany({ agentId, memories: memories.slice(done, done + 5000) });
await engine.runDue();
const memorySeconds = (performance.now() - t0) / 1000;

t0 = performance.now();
for (const agent of [agentId, 'other-agent'])
  for (let i = 0; i < noteCount; i++) {
    const m = gen.memory();
    await engine.notes.create({
      agentId: agent,
      title: `Follow up ${i % 97}`,
      content: m.content,
      tags: [m.type],
      linkedEntities: [{ type: i % 2 === 0 ? 'contact' : 'project', refId: String(i % objects) }],
    });
  }
const noteSeconds = (performance.now() - t0) / 1000;

type Call = readonly [name: string, call: (i: number) => Promise<unknown>];

/** Runs the calls round-robin (so load swings hit every variant alike) and returns p50/p95 of each. */
async function time(calls: readonly Call[]) {
  for (let i = 0; i < 20; i++) for (const [, call] of calls) await call(i); // warm up
  const ms = calls.map(() => [] as number[]);
  for (let i = 0; i < runs; i++)
    for (const [k, [, call]] of calls.entries()) {
      const s = performance.now();
      await call(i);
      ms[k]?.push(performance.now() - s);
    }
  return calls.map(([name], k) => ({ name, p50: percentile(ms[k] ?? [], 50), p95: percentile(ms[k] ?? [], 95) }));
}

const queries = Array.from({ length: 64 }, () => gen.query());
const query = (i: number) => queries[i % 64] as string;
const entity = (i: number) => ({ type: i % 2 === 0 ? 'contact' : 'project', refId: String(i % objects) });
const rows = await time([
  ['notes.search text', (i) => engine.notes.search({ agentId, query: query(i) })],
  ['notes.search text+entity', (i) => engine.notes.search({ agentId, query: query(i), entity: entity(i) })],
  ['notes.search entity only', (i) => engine.notes.search({ agentId, entity: entity(i) })],
  ['notes.list entity', (i) => engine.notes.list({ agentId, entity: entity(i) })],
  ['recall memories', (i) => engine.recall({ agentId, query: query(i), linkedEntities: [entity(i)] })],
  [
    'recall memories+notes',
    (i) => engine.recall({ agentId, query: query(i), linkedEntities: [entity(i)], include: ['memories', 'notes'] }),
  ],
]);

console.log(
  `notes bench: ${memoryCount} memories (${fmt(memorySeconds)} s), ${noteCount} notes × 2 agents over ${objects} host objects (${fmt(noteSeconds)} s, ${fmt((2 * noteCount) / noteSeconds, 0)} creates/s incl. embedding); ${runs} runs each`,
);
for (const r of rows)
  console.log(`${r.name.padEnd(26)} p50 ${fmt(r.p50, 2).padStart(7)} ms   p95 ${fmt(r.p95, 2).padStart(7)} ms`);
console.log(
  `cpus ${cpus().length}, load average ${loadavg()
    .map((l) => fmt(l, 2))
    .join(' / ')}`,
);
await engine.close();
rmSync(dir, { recursive: true, force: true });
