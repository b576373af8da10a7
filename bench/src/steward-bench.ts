// Task recall latency: `engine.steward.recall` in one agent with 10,000 memories, 2,000 working notes
// and 500 host objects (400 contacts, 100 projects) that memories and notes link to. Each task comes
// from a known contact's email and names a project keyword, so resolution finds two host objects;
// the steward then reads their linked memories and notes and runs hybrid recall (notes included) for
// the related tier. Prints p50/p95 of the whole call, of the call without the host resolvers' time,
// and of each stage, with the load average. Target: p50 ≤ 20 ms excluding host resolver time.
//
//   npm run bench:steward
//   npm run bench:steward -- --memories 10000 --notes 2000 --objects 500 --tasks 300
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createSeededRandom } from '@memory/core';
import { createMemoryEngine, type StewardResolver } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '10000' },
    notes: { type: 'string', default: '2000' },
    objects: { type: 'string', default: '500' },
    tasks: { type: 'string', default: '300' },
  },
});
const memoryCount = Number(values.memories);
const noteCount = Number(values.notes);
const objectCount = Number(values.objects);
const taskCount = Number(values.tasks);

const rnd = createSeededRandom(11);
const pickIndex = (n: number): number => Math.floor(rnd.float() * n);
const projectCount = Math.max(1, Math.round(objectCount / 5));
const contacts = Array.from({ length: objectCount - projectCount }, (_, i) => ({
  id: `c${i}`,
  email: `person${i}@example.test`,
}));
const projects = Array.from({ length: projectCount }, (_, i) => ({ id: `p${i}`, keyword: `proj${i}x` }));
const byEmail = new Map(contacts.map((c) => [c.email, c]));
const byKeyword = new Map(projects.map((p) => [p.keyword, p]));
const randomRef = () => {
  const i = pickIndex(objectCount);
  return i < contacts.length
    ? { type: 'contact', refId: (contacts[i] as { id: string }).id }
    : { type: 'project', refId: (projects[i - contacts.length] as { id: string }).id };
};

// Plain in-memory lookups, as a host's cached CRM would be: their time is reported separately.
const resolvers: StewardResolver[] = [
  {
    name: 'contacts',
    kind: 'sender',
    resolve: ({ sender }) => {
      const c = sender?.email ? byEmail.get(sender.email) : undefined;
      return c ? [{ type: 'contact', refId: c.id }] : [];
    },
  },
  {
    name: 'projects',
    kind: 'keywords',
    resolve: ({ text }) =>
      (text.match(/proj\d+x/g) ?? []).flatMap((k) => {
        const p = byKeyword.get(k);
        return p ? [{ type: 'project', refId: p.id }] : [];
      }),
  },
];

const dir = mkdtempSync(join(tmpdir(), 'memory-steward-bench-'));
const engine = await createMemoryEngine({
  database: { path: join(dir, 'bench.db') },
  embedder: createOfflineEmbedder(),
  config: { hints: { enabled: false } },
});
for (const r of resolvers) engine.steward.registerResolver(r);
const agentId = 'bench-agent';
const gen = createGenerator(5);

let t0 = performance.now();
const memories = Array.from({ length: memoryCount }, () => {
  const m = gen.memory();
  const refs = [randomRef(), ...(rnd.float() < 0.5 ? [randomRef()] : [])];
  return { content: m.content, type: m.type, linkedEntities: refs };
});
for (let done = 0; done < memoryCount; done += 5000)
  await engine.rememberMany({ agentId, memories: memories.slice(done, done + 5000) });
const memorySeconds = (performance.now() - t0) / 1000;
t0 = performance.now();
for (let i = 0; i < noteCount; i++) {
  const m = gen.memory();
  await engine.notes.create({
    agentId,
    title: `Follow-up ${i}`,
    content: m.content,
    linkedEntities: [randomRef()],
  });
}
const noteSeconds = (performance.now() - t0) / 1000;

const task = () => {
  const contact = contacts[pickIndex(contacts.length)] as { email: string };
  const project = projects[pickIndex(projects.length)] as { keyword: string };
  return { agentId, text: `${gen.query()} about ${project.keyword}`, sender: { email: contact.email } };
};
for (let i = 0; i < 20; i++) await engine.steward.recall(task()); // warm-up: statement caches, JIT

const total: number[] = [];
const withoutResolvers: number[] = [];
const resolver: number[] = [];
const linked: number[] = [];
const related: number[] = [];
let linkedItems = 0;
let relatedItems = 0;
let entities = 0;
for (let i = 0; i < taskCount; i++) {
  const s = performance.now();
  const result = await engine.steward.recall(task());
  const ms = performance.now() - s;
  total.push(ms);
  resolver.push(result.timings.resolverMs);
  withoutResolvers.push(ms - result.timings.resolverMs);
  linked.push(result.timings.linkedMs);
  related.push(result.timings.relatedMs);
  linkedItems += result.linked.length;
  relatedItems += result.related.length;
  entities += result.entities.length;
}
// The same tasks through the parts the related tier runs, for ratios measured in this run.
const plainRecall: number[] = [];
const withNotes: number[] = [];
for (let i = 0; i < taskCount; i++) {
  const { text } = task();
  let s = performance.now();
  await engine.recall({ agentId, query: text, limit: 10 });
  plainRecall.push(performance.now() - s);
  s = performance.now();
  await engine.recall({ agentId, query: text, limit: 10, include: ['memories', 'notes'] });
  withNotes.push(performance.now() - s);
}
// The same tasks on a second engine over the same file with steward.relatedNotes off (memories only).
const withoutNoteSearch: number[] = [];
{
  const lean = await createMemoryEngine({
    database: { path: join(dir, 'bench.db') },
    embedder: createOfflineEmbedder(),
    config: { hints: { enabled: false }, steward: { relatedNotes: false } },
  });
  for (const r of resolvers) lean.steward.registerResolver(r);
  for (let i = 0; i < 20; i++) await lean.steward.recall(task());
  for (let i = 0; i < taskCount; i++) {
    const s = performance.now();
    const result = await lean.steward.recall(task());
    withoutNoteSearch.push(performance.now() - s - result.timings.resolverMs);
  }
  await lean.close();
}
const line = (name: string, xs: number[]) =>
  console.log(
    `${name.padEnd(40)} p50 ${fmt(percentile(xs, 50)).padStart(7)} ms   p95 ${fmt(percentile(xs, 95)).padStart(7)} ms`,
  );

console.log(
  `steward.recall: ${memoryCount} memories (loaded in ${fmt(memorySeconds)} s), ${noteCount} notes (${fmt(noteSeconds)} s), ` +
    `${objectCount} host objects, one agent, offline embedder; ${taskCount} tasks`,
);
console.log(
  `per task: ${fmt(entities / taskCount)} host objects resolved, ${fmt(linkedItems / taskCount)} linked items, ` +
    `${fmt(relatedItems / taskCount)} related items`,
);
line('total', total);
line('total without host resolvers', withoutResolvers);
line('  host resolvers', resolver);
line('  linked tier (memories + notes)', linked);
line('  related tier (recall with notes)', related);
line('relatedNotes off (memories only)', withoutNoteSearch);
line('engine.recall alone (same queries)', plainRecall);
line('engine.recall with notes alone', withNotes);
const p50 = percentile(withoutResolvers, 50);
console.log(`target p50 ≤ 20 ms excluding host resolvers: ${p50 <= 20 ? 'met' : 'NOT met'} (${fmt(p50)} ms)`);
console.log(
  `load average (1/5/15 min): ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
await engine.close();
rmSync(dir, { recursive: true, force: true });
