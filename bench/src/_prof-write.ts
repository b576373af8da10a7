import { createMemoryEngine } from '@memory/engine';
import { createDenseEmbedder } from './dense-embedder.js';
import { createGenerator } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';
const gen = createGenerator(42); const seen = new Set<string>(); const inputs: any[] = [];
while (inputs.length < 30000) { const m = gen.memory(); if (seen.has(m.content)) continue; seen.add(m.content); inputs.push({ content: m.content, type: m.type, who: m.who, project: m.project }); }
const fixture = await embedFixture(createDenseEmbedder(384), inputs.map((i) => i.content));
const mode = process.argv[2] ?? 'vec';
const e = await createMemoryEngine({ database: { path: `/tmp/vexp/prof/p-${Date.now()}.db` }, ...(mode === 'none' ? {} : { embedder: replayEmbedder(fixture) }), config: { limits: { maxBatchInputs: 100000 }, ...(mode === 'novec' ? { store: { vectorExtension: 'off' } } : {}) } });
const t = performance.now();
for (let d = 0; d < 30000; d += 10000) await e.rememberMany({ agentId: 'bench', memories: inputs.slice(d, d + 10000) });
console.log(mode, (30000 / ((performance.now() - t) / 1000)).toFixed(0), '/s');
await e.close();
