// Where rememberMany's time goes (issue 20 item 5). The same load as bench:write (synthetic corpus,
// 384-d precomputed vectors, one agent, a fresh file per run), run once with everything and once per
// part switched off; the difference is that part's cost per memory. Parts are switched off from
// outside the engine, on the host-owned connection it is given, after migrations: dropping a trigger
// or index, or a BEFORE INSERT trigger that ignores the row. A second section samples the whole run
// with the V8 profiler and groups self time by module (SQLite's own work shows as the driver's
// native calls). A third times the per-memory JavaScript steps alone.
//   npm run bench:write-profile
//   npm run bench:write-profile -- --count 20000 --repeat 3
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import type { EmbeddingProvider, MemoryConfigInput } from '@memory/core';
import { createMemoryEngine } from '@memory/engine';
import { prepareContent } from '@memory/store';
import Database from 'better-sqlite3';
import { createDenseEmbedder } from './dense-embedder.js';
import { fmt } from './stats.js';
import { distinctMemories } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    single: { type: 'string', default: '2000' },
    /** Runs per variant; the fastest counts (the machine is shared: noise only adds time). */
    repeat: { type: 'string', default: '2' },
    /** Only the sampling profiles (skip the parts switched off one by one). */
    'profile-only': { type: 'boolean', default: false },
  },
});
const total = Number(values.count);
const singles = Math.min(Number(values.single), total);
const repeat = Math.max(1, Number(values.repeat));

const inputs = distinctMemories(total);
const fixture = await embedFixture(
  createDenseEmbedder(384),
  inputs.map((i) => i.content),
);
const replay = replayEmbedder(fixture);
const dir = mkdtempSync(join(tmpdir(), 'memory-write-profile-'));
let run = 0;
/** Variants whose part does not exist in this schema (nothing was switched off). */
const missing = new Set<string>();

/** Statements run on the migrated connection before the load (switching a part off). */
type Tweak = readonly string[];

interface Variant {
  readonly label: string;
  /** True when the variant adds a copy of a part instead of removing it (its cost is then with − without). */
  readonly adds?: boolean;
  readonly tweak?: Tweak;
  readonly embedder?: EmbeddingProvider | undefined;
  readonly config?: MemoryConfigInput;
}

const IGNORE = (table: string) =>
  `CREATE TRIGGER profile_skip_${table} BEFORE INSERT ON ${table} BEGIN SELECT RAISE(IGNORE); END`;

/** Names of the triggers on `table` whose body mentions `needle`. */
function triggersOn(db: Database.Database, table: string, needle: string): string[] {
  return (
    db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = ?").all(table) as Array<{
      name: string;
      sql: string;
    }>
  )
    .filter((t) => t.sql.includes(needle))
    .map((t) => t.name);
}

/** Seconds per memory: wall clock, and CPU of the whole process (all threads; what load does not inflate as much). */
interface Cost {
  readonly wall: number;
  readonly cpu: number;
}

async function load(variant: Variant, mode: 'bulk' | 'single', count: number): Promise<Cost> {
  const db = new Database(join(dir, `p${run++}.db`));
  const config: MemoryConfigInput = { limits: { maxBatchInputs: 100_000 }, ...variant.config };
  const engine = await createMemoryEngine({
    database: { database: db },
    ...(variant.embedder ? { embedder: variant.embedder } : {}),
    config,
  });
  const resolve = (statement: string): string[] => {
    // "drop triggers <table> <needle>" expands to the matching triggers (names differ by migration).
    const m = /^drop triggers (\w+) (\S+)$/.exec(statement);
    if (!m) return [statement];
    return triggersOn(db, m[1] as string, m[2] as string).map((name) => `DROP TRIGGER ${name}`);
  };
  let applied = 0;
  for (const statement of variant.tweak ?? [])
    for (const s of resolve(statement)) {
      db.exec(s);
      applied++;
    }
  if ((variant.tweak?.length ?? 0) > 0 && applied === 0) missing.add(variant.label);
  const agentId = 'bench';
  const started = performance.now();
  const cpuStarted = process.cpuUsage();
  if (mode === 'single') {
    for (let i = 0; i < count; i++)
      await engine.remember({ agentId, ...(inputs[i] as (typeof inputs)[number]) } as never);
  } else {
    for (let done = 0; done < count; done += 10_000)
      await engine.rememberMany({ agentId, memories: inputs.slice(done, Math.min(count, done + 10_000)) as never });
  }
  const wall = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuStarted);
  await engine.close();
  db.close();
  return { wall: wall / count, cpu: (cpu.user + cpu.system) / 1e6 / count };
}

async function best(variant: Variant, mode: 'bulk' | 'single', count: number): Promise<Cost> {
  let wall = Number.POSITIVE_INFINITY;
  let cpu = Number.POSITIVE_INFINITY;
  for (let i = 0; i < repeat; i++) {
    const cost = await load(variant, mode, count);
    wall = Math.min(wall, cost.wall);
    cpu = Math.min(cpu, cost.cpu);
  }
  return { wall, cpu };
}

const variants: Variant[] = [
  // Gone since migration 20 (then this row measures nothing and says so).
  { label: 'memory FTS5 (memories_fts triggers)', tweak: ['drop triggers memories memories_fts'] },
  // The rows only: terms are still computed (by the insert trigger before migration 20, by the writer after).
  { label: 'scoped text postings rows', tweak: [IGNORE('text_postings')] },
  // The insert's ON CONFLICT needs the dedup index itself: a second index like it costs about the same.
  {
    label: 'dedup index (a second copy of it, added)',
    adds: true,
    tweak: ['CREATE INDEX profile_dedup_copy ON memories (agent_id, content_hash) WHERE is_deleted = 0'],
  },
  { label: 'history rows', tweak: [IGNORE('memory_history')] },
  { label: 'vector mirror (vec0 rows)', config: { store: { vectorExtension: 'off' } } },
  { label: 'vectors (no embedder: no blob, no vec0)', embedder: undefined },
  // The writer then checkpoints on its own thread every 1,000 WAL pages instead of asking the
  // background worker for a checkpoint every few commits.
  { label: 'background checkpoints (worker)', config: { store: { backgroundCheckpoint: false } } },
];

console.log(
  `${total.toLocaleString('en-US')} synthetic memories, 384-d vectors (precomputed), one agent, file databases; best of ${repeat}`,
);
const everything: Variant = { label: 'everything', embedder: replay };
const us = (seconds: number) => `${fmt(seconds * 1e6, 1).padStart(6)} µs`;
if (!values['profile-only']) await parts();

async function parts(): Promise<void> {
  const base = await best(everything, 'bulk', total);
  console.log(`\nrememberMany, one part off at a time (cost = everything − without it), per memory:`);
  console.log(
    `  ${''.padEnd(44)} ${'wall'.padStart(9)} ${'cost'.padStart(9)}   ${'cpu'.padStart(9)} ${'cost'.padStart(9)}`,
  );
  console.log(
    `  ${'everything'.padEnd(44)} ${us(base.wall)} ${''.padStart(9)}   ${us(base.cpu)}   (${fmt(1 / base.wall, 0)} memories/s)`,
  );
  let attributed = 0;
  for (const variant of variants) {
    const other = await best({ embedder: replay, ...variant }, 'bulk', total);
    const sign = variant.adds ? -1 : 1;
    const cost = { wall: sign * (base.wall - other.wall), cpu: sign * (base.cpu - other.cpu) };
    attributed += cost.cpu;
    console.log(
      missing.has(variant.label)
        ? `  − ${variant.label.padEnd(42)} (not in this schema)`
        : `  ${variant.adds ? '+' : '−'} ${variant.label.padEnd(42)} ${us(other.wall)} ${us(cost.wall)}   ${us(other.cpu)} ${us(cost.cpu)}  (${fmt((100 * cost.cpu) / base.cpu, 0)}% of cpu)`,
    );
  }
  console.log(
    `  ${'rest (engine, rows, transactions), cpu'.padEnd(44)} ${''.padStart(9)} ${''.padStart(9)}   ${us(base.cpu - attributed)}`,
  );

  const single = await best(everything, 'single', singles);
  console.log(
    `\nremember one at a time: wall ${us(single.wall)}/memory (${fmt(1 / single.wall, 0)}/s), cpu ${us(single.cpu)}; per-call cpu over bulk ${us(single.cpu - base.cpu)}`,
  );
}

// The per-memory JavaScript steps, alone.
{
  const n = Math.min(total, 20_000);
  const timeIt = (fn: (i: number) => void): number => {
    const started = performance.now();
    for (let i = 0; i < n; i++) fn(i);
    return (performance.now() - started) / 1000 / n;
  };
  console.log('\nJavaScript steps alone:');
  console.log(
    `  normalize + sha256 (prepareContent)        ${us(timeIt((i) => prepareContent(inputs[i]?.content ?? '')))}`,
  );
}

// Self time by module over one bulk run and one run of single calls (V8 sampling profiler).
async function profileRun(mode: 'bulk' | 'single', count: number): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await load(everything, mode, count);
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const byGroup = new Map<string, number>();
  const byFunction = new Map<string, number>();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const counts = new Map<number, number>();
  for (const id of profile.samples ?? []) counts.set(id, (counts.get(id) ?? 0) + 1);
  let samples = 0;
  for (const [id, n] of counts) {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) continue;
    samples += n;
    const group = groupOf(frame.url, frame.functionName);
    byGroup.set(group, (byGroup.get(group) ?? 0) + n);
    // Native statement calls are named after the store function that issued them.
    let caller = frame;
    let up = parentOf.get(id);
    while (caller.url === '' && up !== undefined) {
      const parent = nodes.get(up)?.callFrame;
      if (!parent) break;
      if (parent.url.includes('/packages/') && !parent.url.includes('internal/sql')) {
        caller = { ...parent, functionName: `${frame.functionName || 'native'} ← ${parent.functionName}` };
        break;
      }
      up = parentOf.get(up);
    }
    const name = `${caller.functionName || '(anonymous)'} ${groupOf(caller.url, '')}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + n);
  }
  const label = mode === 'bulk' ? 'one bulk run' : 'single remember calls';
  console.log(`\nself time by module, ${label} of ${count.toLocaleString('en-US')} (${samples} samples):`);
  for (const [group, n] of [...byGroup].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`  ${group.padEnd(56)} ${fmt((100 * n) / samples, 1).padStart(5)}%`);
  console.log(`by function (a driver call is named by the store function that made it):`);
  for (const [name, n] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 20))
    console.log(`  ${name.slice(0, 90).padEnd(90)} ${fmt((100 * n) / samples, 1).padStart(5)}%`);
}
await profileRun('bulk', total);
await profileRun('single', singles);

/** A readable bucket for a profiler frame. */
function groupOf(url: string, name: string): string {
  if (url === '') {
    // Native functions: the driver's statement calls are SQLite's own work (and what it calls back).
    if (['run', 'get', 'all', 'iterate', 'exec', 'raw'].includes(name)) return `sqlite (native ${name})`;
    return `(${name || 'native'})`;
  }
  const pkg = /packages\/(\w+)\/src\/(.+)\.ts/.exec(url);
  if (pkg) return `@memory/${pkg[1]} ${pkg[2]}`;
  const dep = /node_modules\/(?:\.pnpm\/)?(@?[\w.-]+)/.exec(url);
  if (dep) return `dependency ${dep[1]}`;
  return url.replace(/^.*\//, '');
}

rmSync(dir, { recursive: true, force: true });
