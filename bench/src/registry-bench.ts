// The entity registry at one agent's realistic upper size: 200 categories over 20,000 memories,
// each memory in 1–3 categories (~40,000 links), next to a second agent of the same size (scope
// must not slow anything down). Prints p50/p95 per read, link throughput, and one cascade delete
// and one merge. No LLM: auto-linking is off; this measures the store and engine paths.
//
//   npm run bench:registry
import { createMemoryEngine, type MemoryEngine } from '@memory/engine';
import { fmt, percentile } from './stats.js';

const CATEGORIES = 200;
const MEMORIES = 20_000;
const RUNS = 200;

async function seed(engine: MemoryEngine, agentId: string): Promise<{ categories: string[]; memories: string[] }> {
  const categories: string[] = [];
  for (let i = 0; i < CATEGORIES; i++)
    categories.push((await engine.registry.create({ agentId, name: `Area ${i} of life` })).id);
  const memories: string[] = [];
  for (let start = 0; start < MEMORIES; start += 1000) {
    const batch = await engine.rememberMany({
      agentId,
      memories: Array.from({ length: 1000 }, (_, j) => ({
        content: `Memory ${start + j} about topic ${(start + j) % 997}`,
      })),
    });
    memories.push(...batch.map((m) => m.id));
  }
  return { categories, memories };
}

async function timed(label: string, runs: number, fn: (i: number) => Promise<unknown>): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn(i);
    samples.push(performance.now() - start);
  }
  console.log(
    `${label.padEnd(44)} p50 ${fmt(percentile(samples, 50), 2)} ms  p95 ${fmt(percentile(samples, 95), 2)} ms`,
  );
}

const engine = await createMemoryEngine({
  database: { path: ':memory:' },
  config: { registry: { autoLinkOnCreate: false }, hints: { enabled: false } },
});
const mine = await seed(engine, 'a');
const theirs = await seed(engine, 'b');

const linkStart = performance.now();
let links = 0;
for (const [agentId, world] of [
  ['a', mine],
  ['b', theirs],
] as const) {
  for (const [i, id] of world.memories.entries()) {
    // 1–3 categories per memory, spread so category sizes vary (≈ 100 to 300 objects).
    for (let k = 0; k <= i % 3; k++) {
      const category = world.categories[(i * 7 + k * 31) % CATEGORIES] as string;
      await engine.registry.link({ agentId, id: category, object: { kind: 'memory', id } });
      links++;
    }
  }
}
const linkMs = performance.now() - linkStart;
console.log(
  `links: ${links} in ${fmt(linkMs / 1000, 1)} s (${fmt(links / (linkMs / 1000), 0)} links/s, each its own transaction)`,
);

await timed('list (200 categories with counts)', RUNS, () => engine.registry.list({ agentId: 'a', limit: 1000 }));
await timed('get (counts + 50 objects with previews)', RUNS, (i) =>
  engine.registry.get({ agentId: 'a', id: mine.categories[i % CATEGORIES] as string }),
);
await timed('objects by category (100)', RUNS, (i) =>
  engine.registry.objects({ agentId: 'a', id: mine.categories[i % CATEGORIES] as string, limit: 100 }),
);
await timed('categories by object', RUNS, (i) =>
  engine.registry.categoriesOf({ agentId: 'a', object: { kind: 'memory', id: mine.memories[i * 97] as string } }),
);
await timed('deletePreview (a whole category)', RUNS, (i) =>
  engine.registry.deletePreview({ agentId: 'a', id: mine.categories[i % CATEGORIES] as string }),
);

const victim = mine.categories[5] as string;
const plan = await engine.registry.deletePreview({ agentId: 'a', id: victim });
let start = performance.now();
await engine.registry.delete({ agentId: 'a', id: victim });
console.log(
  `delete: ${plan.remove.length} memories forgotten, ${plan.unlink.length} unlinked in ${fmt(performance.now() - start, 1)} ms`,
);
start = performance.now();
const merged = await engine.registry.merge({
  agentId: 'a',
  id: mine.categories[6] as string,
  intoId: mine.categories[7] as string,
});
console.log(
  `merge: ${merged.moved} links moved, ${merged.alreadyLinked} already linked, in ${fmt(performance.now() - start, 1)} ms`,
);
await engine.close();
