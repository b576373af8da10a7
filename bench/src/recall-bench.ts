// Recall latency at scale: 100,000 memories with 384-dimension dense vectors (a synthetic embedder:
// latency depends on the vectors' shape, not their meaning), first in one agent, then spread over
// 100 agents; p50/p95 per configuration with mean stage timings.
//   npm run bench:recall
//   npm run bench:recall -- --count 20000 --queries 200

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryConfigInput } from '@memory/core';
import { createMemoryEngine, type RecallTimings, type RememberManyMemory } from '@memory/engine';
import Database from 'better-sqlite3';
import { createDenseEmbedder } from './dense-embedder.js';
import { fmt, percentile } from './stats.js';
import { createGenerator } from './synthetic.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    agents: { type: 'string', default: '100' },
    queries: { type: 'string', default: '300' },
    dims: { type: 'string', default: '384' },
    /** Which layouts to run: agent counts, comma-separated. */
    layouts: { type: 'string' },
  },
});
const total = Number(values.count);
const spread = Number(values.agents);
const queryCount = Number(values.queries);
const embedder = createDenseEmbedder(Number(values.dims));
const dir = mkdtempSync(join(tmpdir(), 'memory-recall-bench-'));

const STAGES: ReadonlyArray<keyof RecallTimings> = [
  'lexicalMs',
  'hintsMs',
  'traversalMs',
  'embedWaitMs',
  'semanticMs',
  'fusionMs',
];

async function build(path: string, agents: number): Promise<string[]> {
  const gen = createGenerator(42);
  const agentIds = Array.from({ length: agents }, (_, i) => `agent-${i}`);
  const engine = await createMemoryEngine({
    database: { path },
    embedder,
    config: { limits: { maxBatchInputs: 100_000 } },
  });
  const started = performance.now();
  for (let done = 0; done < total; ) {
    const n = Math.min(10_000, total - done);
    // Memories go to the agents round-robin; one rememberMany call per agent.
    const byAgent = new Map<string, RememberManyMemory[]>();
    for (let i = 0; i < n; i++) {
      const m = gen.memory();
      const agentId = agentIds[(done + i) % agents] as string;
      const memories = byAgent.get(agentId) ?? [];
      memories.push({ content: m.content, type: m.type, who: m.who, project: m.project });
      byAgent.set(agentId, memories);
    }
    for (const [agentId, memories] of byAgent) await engine.rememberMany({ agentId, memories });
    done += n;
  }
  console.log(
    `  built ${total.toLocaleString('en-US')} memories with ${embedder.dimensions}-d vectors over ${agents} agent(s) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  await engine.close();
  return agentIds;
}

async function measure(
  label: string,
  path: string,
  agentIds: readonly string[],
  options: { embed: boolean; config?: MemoryConfigInput },
): Promise<void> {
  const db = new Database(path);
  const engine = await createMemoryEngine({
    database: { database: db },
    ...(options.embed ? { embedder } : {}),
    config: { recall: { searchWindowDays: null }, ...options.config },
  });
  const gen = createGenerator(7);
  const latencies: number[] = [];
  const stages = new Map<string, number>();
  let completeness = '';
  for (let i = 0; i < queryCount + 20; i++) {
    const agentId = agentIds[i % agentIds.length] as string;
    const response = await engine.recall({ agentId, query: gen.query() });
    if (i < 20) continue; // warm-up: statement cache, page cache
    latencies.push(response.timings.totalMs);
    for (const s of STAGES) stages.set(s, (stages.get(s) ?? 0) + response.timings[s]);
    completeness = response.vectorCompleteness;
  }
  const mean = STAGES.map((s) => `${s.replace('Ms', '')} ${fmt((stages.get(s) ?? 0) / queryCount, 2)}`).join(' · ');
  console.log(
    `  ${label.padEnd(30)} p50 ${fmt(percentile(latencies, 50), 2)} ms  p95 ${fmt(percentile(latencies, 95), 2)} ms  (vectors: ${completeness}; mean ms: ${mean})`,
  );
  await engine.close();
  db.close();
}

const layouts = values.layouts ? values.layouts.split(',').map(Number) : [1, spread];
for (const agents of layouts) {
  const path = join(dir, `recall-${agents}.db`);
  console.log(
    `\n${agents === 1 ? 'one agent' : `${agents} agents (${Math.round(total / agents).toLocaleString('en-US')} memories each)`}`,
  );
  const agentIds = await build(path, agents);
  await measure('lexical only', path, agentIds, { embed: false });
  await measure('hybrid, sqlite-vec KNN', path, agentIds, { embed: true });
  await measure('hybrid, scan fallback (10k)', path, agentIds, {
    embed: true,
    config: { store: { vectorExtension: 'off' } },
  });
}
rmSync(dir, { recursive: true, force: true });
