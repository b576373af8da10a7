// bench:embedding-map — how long the inspector's embedding map takes: the UMAP projection of an
// agent's newest memory vectors (engine.embeddingMap), computed once, then served from the cache.
// Usage: npm run bench:embedding-map [-- 10000,100000] [limit]   (default sizes 10,000 and 100,000;
// the map projects at most `limit` newest memories, default 2000, at most 20,000).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEngine } from '@memory/engine';
import { createDenseEmbedder } from './dense-embedder.js';
import { createGenerator } from './synthetic.js';

const sizes = (process.argv[2] ?? '10000,100000').split(',').map(Number);
const limits = (process.argv[3] ?? '2000,20000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'bench-map-'));
const fmt = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

for (const size of sizes) {
  const embedder = createDenseEmbedder(128);
  const engine = await createMemoryEngine({
    database: { path: join(dir, `map-${size}.db`) },
    embedder,
    config: { limits: { maxBatchInputs: 100_000 }, hints: { enabled: false } },
  });
  const generator = createGenerator(7);
  const seen = new Set<string>();
  const memories: Array<ReturnType<typeof generator.memory>> = [];
  while (memories.length < size) {
    const m = generator.memory();
    const content = `${m.content} (#${memories.length})`;
    if (seen.has(content)) continue;
    seen.add(content);
    memories.push({ ...m, content });
  }
  const started = performance.now();
  for (let done = 0; done < size; done += 10_000)
    await engine.rememberMany({ agentId: 'bench', memories: memories.slice(done, done + 10_000) as never });
  console.log(
    `${size.toLocaleString('en-US')} memories (${embedder.dimensions}-d vectors) written in ${fmt(performance.now() - started)}`,
  );
  for (const limit of limits) {
    if (limit > size) continue;
    const first = performance.now();
    const map = await engine.embeddingMap({ agentId: 'bench', limit });
    const wall = performance.now() - first;
    const again = performance.now();
    const cached = await engine.embeddingMap({ agentId: 'bench', limit });
    console.log(
      `  map of the newest ${limit.toLocaleString('en-US')}: UMAP ${fmt(map.computedMs)} (call ${fmt(wall)}), ${map.points.length} points; cached call ${(performance.now() - again).toFixed(0)} ms (cached: ${cached.cached})`,
    );
  }
  await engine.close();
}
