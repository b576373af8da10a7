// Write throughput with 384-d vectors beside the raw better-sqlite3 floor, on one synthetic corpus.
// Vectors are computed up front (the synthetic dense embedder, replayed), so both sides measure
// storage, not the embedder. The floor writes the same rows into the same migrated schema with
// plain prepared INSERTs (memory row, FTS by trigger, history row, canonical vector blob), in
// transactions of the same size (100 for bulk, 1 for single); "+ vec0" adds one vector-index row per
// memory. Content is normalized and hashed up front for the floor (the engine does it in its time).
// The engine side is rememberMany (bulk) and remember (single calls), each on a fresh file.
// A last section prints where the engine's bulk time goes: the same load with parts switched off.
//   npm run bench:write
//   npm run bench:write -- --count 50000 --single 5000
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import {
  createSequentialIds,
  type EmbeddingProvider,
  hashNormalized,
  type MemoryConfigInput,
  normalizeForHash,
} from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { openStore } from '@memory/store';
import { createDenseEmbedder } from './dense-embedder.js';
import { fmt } from './stats.js';
import { createGenerator } from './synthetic.js';
import { embedFixture, replayEmbedder, type VectorFixture } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    single: { type: 'string', default: '5000' },
    /** Skip the breakdown of the engine's bulk time. */
    quick: { type: 'boolean', default: false },
  },
});
const total = Number(values.count);
const singles = Math.min(Number(values.single), total);

const gen = createGenerator(42);
const seen = new Set<string>();
const inputs: Array<{ content: string; type: string; who: string; project: string }> = [];
while (inputs.length < total) {
  const m = gen.memory();
  if (seen.has(m.content)) continue;
  seen.add(m.content);
  inputs.push({ content: m.content, type: m.type, who: m.who, project: m.project });
}
// The floor stores what the engine stores: normalized content and its sha256 (computed up front; the
// dedup index then sees random keys, as it does in the engine).
const prepared = inputs.map((i) => {
  const normalized = normalizeForHash(i.content);
  return { normalized, hash: hashNormalized(normalized) };
});
const fixture: VectorFixture = await embedFixture(
  createDenseEmbedder(384),
  inputs.map((i) => i.content),
);
const dir = mkdtempSync(join(tmpdir(), 'memory-write-bench-'));
let run = 0;
const freshPath = () => join(dir, `w${run++}.db`);

/** The floor: the same rows through plain prepared statements, `perTransaction` memories per commit. */
async function floor(count: number, perTransaction: number, withVec0: boolean): Promise<number> {
  const store = await openStore({ path: freshPath() });
  const db = store.database;
  if (withVec0)
    db.exec(
      'CREATE VIRTUAL TABLE floor_vec USING vec0(agent_id text partition key, cell integer partition key, embedding float[384] distance_metric=cosine, chunk_size=128)',
    );
  const memory = db.prepare(
    `INSERT INTO memories (id, agent_id, project, type, content, normalized_content, content_hash, importance,
       tags, who, linked_entities, embedding_model, created_at, updated_at)
     VALUES (?, 'bench', ?, ?, ?, ?, ?, 0.5, '[]', ?, '[]', 'dense', ?, ?)`,
  );
  const history = db.prepare(
    `INSERT INTO memory_history (id, memory_id, agent_id, event, new_content, changed_by, actor_type, metadata, created_at)
     VALUES (?, ?, 'bench', 'created', ?, 'bench', 'agent', '{}', ?)`,
  );
  const vector = db.prepare(
    `INSERT INTO embeddings (agent_id, source_type, source_id, content_hash, model, dimensions, vector, created_at)
     VALUES ('bench', 'memory', ?, ?, 'dense', 384, ?, ?) RETURNING seq`,
  );
  const vec0 = withVec0
    ? db.prepare("INSERT INTO floor_vec (rowid, agent_id, cell, embedding) VALUES (?, 'bench', ?, ?)")
    : undefined;
  const ids = createSequentialIds('f');
  const started = performance.now();
  for (let start = 0; start < count; start += perTransaction) {
    db.transaction(() => {
      for (let i = start; i < Math.min(count, start + perTransaction); i++) {
        const input = inputs[i] as (typeof inputs)[number];
        const { normalized, hash } = prepared[i] as (typeof prepared)[number];
        const id = ids.next();
        const now = Date.now();
        memory.run(id, input.project, input.type, input.content, normalized, hash, input.who, now, now);
        history.run(ids.next(), id, input.content, now);
        const blob = Buffer.from(fixture.matrix.buffer, i * 384 * 4, 384 * 4);
        const { seq } = vector.get(id, hash, blob, now) as { seq: number };
        vec0?.run((1n << 40n) | BigInt(seq), 1n << 20n, blob);
      }
    }).immediate();
  }
  const seconds = (performance.now() - started) / 1000;
  store.close();
  return count / seconds;
}

/** The engine: rememberMany in calls of 10,000, or one remember per memory. */
async function engine(
  count: number,
  mode: 'bulk' | 'single',
  options: { embedder?: EmbeddingProvider | undefined; config?: MemoryConfigInput } = {},
): Promise<number> {
  const e = await createMemoryEngine({
    database: { path: freshPath() },
    ...(options.embedder ? { embedder: options.embedder } : {}),
    config: { limits: { maxBatchInputs: 100_000 }, ...options.config },
  });
  const agentId = 'bench';
  const started = performance.now();
  if (mode === 'single') {
    for (let i = 0; i < count; i++) await e.remember({ agentId, ...(inputs[i] as (typeof inputs)[number]) } as never);
  } else {
    for (let done = 0; done < count; done += 10_000)
      await e.rememberMany({ agentId, memories: inputs.slice(done, Math.min(count, done + 10_000)) as never });
  }
  const seconds = (performance.now() - started) / 1000;
  await e.close();
  return count / seconds;
}

const replay = replayEmbedder(fixture);
const rate = (n: number) => `${fmt(n, 0).padStart(7)} memories/s`;
console.log(
  `${total.toLocaleString('en-US')} synthetic memories, 384-d vectors (precomputed), one agent, file databases`,
);
const floorBulk = await floor(total, 100, false);
const floorBulkVec = await floor(total, 100, true);
const engineBulk = await engine(total, 'bulk', { embedder: replay });
console.log(
  `bulk   floor ${rate(floorBulk)}   floor + vec0 ${rate(floorBulkVec)}   rememberMany ${rate(engineBulk)}  (${fmt(engineBulk / floorBulk, 2)}× the floor)`,
);
const floorSingle = await floor(singles, 1, false);
const floorSingleVec = await floor(singles, 1, true);
const engineSingle = await engine(singles, 'single', { embedder: replay });
console.log(
  `single floor ${rate(floorSingle)}   floor + vec0 ${rate(floorSingleVec)}   remember     ${rate(engineSingle)}  (${fmt(engineSingle / floorSingle, 2)}× the floor)`,
);

if (!values.quick) {
  // Where the bulk time goes: each row switches one part off (the difference is its cost).
  const parts: Array<[string, { embedder?: EmbeddingProvider | undefined; config?: MemoryConfigInput }]> = [
    ['everything (as above)', { embedder: replay }],
    ['no vectors (no embedder)', {}],
    ['no inline entity linking', { embedder: replay, config: { remember: { inlineEntityLinking: false } } }],
    ['sqlite-vec off (canonical vectors only)', { embedder: replay, config: { store: { vectorExtension: 'off' } } }],
  ];
  const n = Math.min(total, 50_000);
  console.log(`\nbreakdown, rememberMany of ${n.toLocaleString('en-US')}:`);
  for (const [label, options] of parts) {
    const r = await engine(n, 'bulk', options);
    console.log(`  ${label.padEnd(42)} ${rate(r)}  ${fmt(1e6 / r, 1).padStart(6)} µs/memory`);
  }
}
rmSync(dir, { recursive: true, force: true });
