// The Dreaming apply seam without the LLM: batches of 100 valid operations (entities, aspects and
// claims citing exact quotes from a completed transcript), validated and written; p50/p95 per batch.
//   npm run bench:dreaming
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({ options: { batches: { type: 'string', default: '30' } } });
const batches = Number(values.batches);
const dir = mkdtempSync(join(tmpdir(), 'memory-dreaming-bench-'));
const engine = await createMemoryEngine({ database: { path: join(dir, 'dreaming.db') } });
const agentId = 'bench-agent';
const lines = Array.from({ length: 200 }, (_, i) => `Project P${i} ships in week ${i % 52} and is owned by team T${i % 17}.`);
await engine.transcripts.append({ agentId, sessionKey: 'evidence', turns: lines.map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content, id: `t${i}` })) });
await engine.transcripts.complete({ agentId, sessionKey: 'evidence' });
const cite = (i: number) => [{ sourceRef: 'transcript:evidence', quote: lines[i % lines.length] as string }];

const timings: number[] = [];
let applied = 0;
for (let b = 0; b < batches; b++) {
  // Setup (not timed): 5 entities with one aspect each, so 100 claims stay under the 50-per-aspect cap.
  const entities = await engine.dreaming.apply({ agentId, passId: `setup-${b}` }, Array.from({ length: 5 }, (_, i) => ({ operation: 'create_entity', payload: { name: `Entity ${b}-${i}` }, evidence: cite(i) })));
  const aspects = await engine.dreaming.apply({ agentId, passId: `setup-${b}` }, entities.applied.map((e, i) => ({ operation: 'create_aspect', payload: { entityId: e.targetId, name: 'delivery' }, evidence: cite(i) })));
  const ops = Array.from({ length: 100 }, (_, i) => ({
    operation: 'add_claim',
    payload: { aspectId: aspects.applied[i % 5]?.targetId, claimKey: `claim-${i}`, content: lines[(b * 100 + i) % lines.length] },
    evidence: cite(b * 100 + i),
    confidence: 0.9,
  }));
  const started = performance.now();
  const result = await engine.dreaming.apply({ agentId, passId: `pass-${b}` }, ops);
  timings.push(performance.now() - started);
  applied += result.applied.length;
  if (result.rejected.length > 0) throw new Error(`unexpected rejections: ${JSON.stringify(result.rejected.slice(0, 2))}`);
}
await engine.close();
rmSync(dir, { recursive: true, force: true });
console.log(`apply 100 valid operations (validate + write, no LLM): p50 ${fmt(percentile(timings, 50), 2)} ms, p95 ${fmt(percentile(timings, 95), 2)} ms over ${batches} batches (${applied} operations applied)`);
