// Write throughput with 384-d vectors beside the raw better-sqlite3 floor, on one synthetic corpus.
// Vectors are computed up front (the synthetic dense embedder, replayed), so both sides measure
// storage, not the embedder. The floor writes the same rows into the same migrated schema with
// plain prepared INSERTs (memory row, history row, canonical vector blob, and the scoped text
// index's postings and counts, one INSERT per posting in term order), in transactions of the same
// size (100 for bulk, 1 for single); "+ vec0" adds one vector-index row per memory; "rows only" is
// the floor without postings (what the floor measured before migration 20, less FTS5). Content is
// normalized, hashed and split into index terms up front for the floor (the engine does it in its time).
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
import { textTerms } from '@memory/store/testing';
import { createDenseEmbedder } from './dense-embedder.js';
import { fmt } from './stats.js';
import { distinctMemories } from './synthetic.js';
import { embedFixture, replayEmbedder, type VectorFixture } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    single: { type: 'string', default: '5000' },
    /** Skip the breakdown of the engine's bulk time. */
    quick: { type: 'boolean', default: false },
    /**
     * The floor's `wal_autocheckpoint` (frames). By default it keeps the store's (64,000): the floor
     * commits outside `store.write`, so no background checkpoint is asked for and its WAL is copied
     * into the file rarely; the engine pays its checkpoint worker's copies. 1000 is SQLite's default.
     */
    'floor-autocheckpoint': { type: 'string' },
  },
});
const total = Number(values.count);
const singles = Math.min(Number(values.single), total);

const inputs = distinctMemories(total);
// The floor stores what the engine stores: normalized content and its sha256 (computed up front; the
// dedup index then sees random keys, as it does in the engine).
const prepared = inputs.map((i) => {
  const normalized = normalizeForHash(i.content);
  return { normalized, hash: hashNormalized(normalized), terms: textTerms(i.content) };
});
const fixture: VectorFixture = await embedFixture(
  createDenseEmbedder(384),
  inputs.map((i) => i.content),
);
const dir = mkdtempSync(join(tmpdir(), 'memory-write-bench-'));
let run = 0;
const freshPath = () => join(dir, `w${run++}.db`);

/** The floor: the same rows through plain prepared statements, `perTransaction` memories per commit. */
/** Memories per second of wall time, and CPU seconds (all threads) per memory: under load, CPU says more. */
interface Rate {
  readonly perSecond: number;
  readonly cpu: number;
}

function measure(count: number, started: number, cpuStarted: NodeJS.CpuUsage): Rate {
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  return { perSecond: count / seconds, cpu: (cpu.user + cpu.system) / 1e6 / count };
}

async function floor(count: number, perTransaction: number, withVec0: boolean, withPostings = true): Promise<Rate> {
  const store = await openStore({ path: freshPath() });
  const db = store.database;
  if (values['floor-autocheckpoint'] !== undefined)
    db.pragma(`wal_autocheckpoint = ${Number(values['floor-autocheckpoint'])}`);
  // The floor writes postings itself (or, for "rows only", none): the insert trigger would do it slower.
  db.exec('DROP TRIGGER memories_terms_ai');
  const scope = db
    .prepare("INSERT INTO text_scopes (corpus, agent_id) VALUES ('memory', 'bench') RETURNING scope")
    .get() as { scope: number };
  const posting = db.prepare('INSERT INTO text_postings (scope, term, row, tf, len) VALUES (?, ?, ?, ?, ?)');
  const counts = db.prepare('UPDATE text_scopes SET docs = docs + ?, tokens = tokens + ? WHERE scope = ?');
  // The live memory counts (migration 17), which the insert trigger no longer keeps for the writer's
  // rows (migration 21): one upsert per transaction and day, as the engine's writer does.
  const liveCount = db.prepare(
    `INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n) VALUES ('bench', 'live', 'dense', 0, ?, ?)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + excluded.n`,
  );
  if (withVec0)
    db.exec(
      'CREATE VIRTUAL TABLE floor_vec USING vec0(agent_id text partition key, cell integer partition key, embedding float[384] distance_metric=cosine, chunk_size=128)',
    );
  const memory = db.prepare(
    `INSERT INTO memories (id, agent_id, project, type, content, normalized_content, content_hash, importance,
       tags, who, linked_entities, embedding_model, created_at, updated_at)
     VALUES (?, 'bench', ?, ?, ?, ?, ?, 0.5, '[]', ?, '[]', 'dense', ?, ?) RETURNING seq`,
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
  const cpuStarted = process.cpuUsage();
  for (let start = 0; start < count; start += perTransaction) {
    db.transaction(() => {
      const postings: Array<[string, number, number, number]> = [];
      const days = new Map<number, number>();
      let tokens = 0;
      const end = Math.min(count, start + perTransaction);
      for (let i = start; i < end; i++) {
        const input = inputs[i] as (typeof inputs)[number];
        const { normalized, hash, terms } = prepared[i] as (typeof prepared)[number];
        const id = ids.next();
        const now = Date.now();
        const day = Math.trunc(now / 86_400_000);
        days.set(day, (days.get(day) ?? 0) + 1);
        const row = memory.get(id, input.project, input.type, input.content, normalized, hash, input.who, now, now) as {
          seq: number;
        };
        history.run(ids.next(), id, input.content, now);
        const blob = Buffer.from(fixture.matrix.buffer, i * 384 * 4, 384 * 4);
        const { seq } = vector.get(id, hash, blob, now) as { seq: number };
        vec0?.run((1n << 40n) | BigInt(seq), 1n << 20n, blob);
        if (withPostings) {
          for (const [term, tf] of terms.counts) postings.push([term, row.seq, tf, terms.length]);
          tokens += terms.length;
        }
      }
      for (const [day, n] of days) liveCount.run(day, n);
      if (!withPostings) return;
      postings.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
      for (const [term, row, tf, len] of postings) posting.run(scope.scope, term, row, tf, len);
      counts.run(end - start, tokens, scope.scope);
    }).immediate();
  }
  const rate = measure(count, started, cpuStarted);
  store.close();
  return rate;
}

/** The engine: rememberMany in calls of 10,000, or one remember per memory. */
async function engine(
  count: number,
  mode: 'bulk' | 'single',
  options: { embedder?: EmbeddingProvider | undefined; config?: MemoryConfigInput } = {},
): Promise<Rate> {
  const e = await createMemoryEngine({
    database: { path: freshPath() },
    ...(options.embedder ? { embedder: options.embedder } : {}),
    config: { limits: { maxBatchInputs: 100_000 }, ...options.config },
  });
  const agentId = 'bench';
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  if (mode === 'single') {
    for (let i = 0; i < count; i++) await e.remember({ agentId, ...(inputs[i] as (typeof inputs)[number]) } as never);
  } else {
    for (let done = 0; done < count; done += 10_000)
      await e.rememberMany({ agentId, memories: inputs.slice(done, Math.min(count, done + 10_000)) as never });
  }
  const rate = measure(count, started, cpuStarted);
  await e.close();
  return rate;
}

const replay = replayEmbedder(fixture);
const rate = (r: Rate) => `${fmt(r.perSecond, 0).padStart(7)}/s ${fmt(r.cpu * 1e6, 0).padStart(4)} µs cpu`;
const ratios = (engine: Rate, against: Rate) =>
  `${fmt(engine.perSecond / against.perSecond, 2)}× wall, ${fmt(against.cpu / engine.cpu, 2)}× cpu`;
console.log(
  `${total.toLocaleString('en-US')} synthetic memories, 384-d vectors (precomputed), one agent, file databases; per memory: rate (wall) and CPU`,
);
const floorBulkRows = await floor(total, 100, false, false);
const floorBulk = await floor(total, 100, false);
const floorBulkVec = await floor(total, 100, true);
const engineBulk = await engine(total, 'bulk', { embedder: replay });
console.log(
  `bulk   rows only ${rate(floorBulkRows)} | floor ${rate(floorBulk)} | floor + vec0 ${rate(floorBulkVec)} | rememberMany ${rate(engineBulk)}`,
);
console.log(
  `       rememberMany vs the floor: ${ratios(engineBulk, floorBulk)}; vs floor + vec0: ${ratios(engineBulk, floorBulkVec)}; vs rows only: ${ratios(engineBulk, floorBulkRows)}`,
);
const floorSingleRows = await floor(singles, 1, false, false);
const floorSingle = await floor(singles, 1, false);
const floorSingleVec = await floor(singles, 1, true);
const engineSingle = await engine(singles, 'single', { embedder: replay });
console.log(
  `single rows only ${rate(floorSingleRows)} | floor ${rate(floorSingle)} | floor + vec0 ${rate(floorSingleVec)} | remember     ${rate(engineSingle)}`,
);
console.log(
  `       remember vs the floor: ${ratios(engineSingle, floorSingle)}; vs floor + vec0: ${ratios(engineSingle, floorSingleVec)}; vs rows only: ${ratios(engineSingle, floorSingleRows)}`,
);
// Conflict detection (on by default) looks up the conflict rule's key before each remember of a
// durable kind (two of the corpus's five types) and judges the memories that share it; the floor
// has nothing like it.
const engineSingleNoConflict = await engine(singles, 'single', {
  embedder: replay,
  config: { remember: { conflict: { enabled: false } } },
});
console.log(
  `       remember with conflict detection off ${rate(engineSingleNoConflict)}: vs the floor ${ratios(engineSingleNoConflict, floorSingle)}; vs floor + vec0 ${ratios(engineSingleNoConflict, floorSingleVec)}`,
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
    console.log(`  ${label.padEnd(42)} ${rate(r)}  ${fmt(1e6 / r.perSecond, 1).padStart(6)} µs/memory wall`);
  }
}
rmSync(dir, { recursive: true, force: true });
