import Database from 'better-sqlite3';
import { createMemoryEngine } from '@memory/engine';
import { createDenseEmbedder } from './dense-embedder.js';
import { createGenerator } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';
const gen = createGenerator(42); const seen = new Set<string>(); const inputs: any[] = [];
while (inputs.length < 30000) { const m = gen.memory(); if (seen.has(m.content)) continue; seen.add(m.content); inputs.push({ content: m.content, type: m.type, who: m.who, project: m.project }); }
const fixture = await embedFixture(createDenseEmbedder(384), inputs.map((i) => i.content));
for (const cache of [process.argv[2] ?? '-2000', process.argv[3] ?? '-65536', process.argv[2] ?? '-2000', process.argv[3] ?? '-65536']) {
  const db = new Database(`/tmp/vexp/prof/c-${Date.now()}.db`);
  db.pragma(`cache_size = ${cache}`);
  const e = await createMemoryEngine({ database: { database: db }, embedder: replayEmbedder(fixture), config: { limits: { maxBatchInputs: 100000 } } });
  const t = performance.now();
  for (let d = 0; d < 30000; d += 10000) await e.rememberMany({ agentId: 'bench', memories: inputs.slice(d, d + 10000) });
  console.log('cache_size', cache, (30000 / ((performance.now() - t) / 1000)).toFixed(0), '/s');
  await e.close(); db.close();
}
