// Two checkouts' engines in one process, on the same write workload in alternating segments
// (bench:write's synthetic corpus, 384-d precomputed vectors, one agent; each engine on its own
// file): process CPU and wall time per memory for each side. Sequential runs on a shared machine
// move by more than a few percent between runs; alternating segments within one process lets the
// load hit both sides alike. Each checkout must be set up (`scripts/setup.sh`); its engine source
// is imported directly (run with `--conditions=@memory/source`, as `npm run` does).
//   npm run bench:write-ab -- --base ../main-checkout --branch .
//   npm run bench:write-ab -- --base ../main --branch . --mode bulk --rounds 20 --per 1000
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createDenseEmbedder } from './dense-embedder.js';
import { onStatementRun } from './statement-runs.js';
import { fmt } from './stats.js';
import { distinctMemories } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    branch: { type: 'string' },
    /** `single` (remember per memory) or `bulk` (one rememberMany per segment). */
    mode: { type: 'string', default: 'single' },
    rounds: { type: 'string', default: '24' },
    /** Memories per segment; defaults to 150 (single) or 1,000 (bulk). */
    per: { type: 'string' },
    /** Leading rounds left out of the figures (JIT warm-up). */
    warm: { type: 'string', default: '2' },
    /**
     * Also count the statements each side runs per memory (every run of a prepared statement;
     * BEGIN and COMMIT, run by the driver's transaction function, are not): the engines get an opened handle whose
     * statements are wrapped, so read the CPU figures of a run without this flag.
     */
    statements: { type: 'boolean', default: false },
  },
});
if (!values.base || !values.branch)
  throw new Error('give --base and --branch: two set-up checkouts of this repository');
const mode = values.mode === 'bulk' ? 'bulk' : 'single';
const rounds = Number(values.rounds);
const per = Number(values.per ?? (mode === 'single' ? 150 : 1000));
const warm = Number(values.warm);

const inputs = distinctMemories(rounds * per);
const fixture = await embedFixture(
  createDenseEmbedder(384),
  inputs.map((i) => i.content),
);

/** The part of an engine this bench calls (each checkout's own types are not visible here). */
interface WriteEngine {
  remember(input: unknown): Promise<unknown>;
  rememberMany(input: unknown): Promise<unknown>;
  close(): Promise<void>;
}
type CreateEngine = (options: unknown) => Promise<WriteEngine>;

const dir = mkdtempSync(join(tmpdir(), 'memory-write-ab-'));
const sides: Array<{
  name: string;
  engine: WriteEngine;
  cpu: number;
  wall: number;
  n: number;
  runs: { n: number; counting: boolean };
}> = [];

/** A database whose prepared statements count their runs in `runs` while `runs.counting`. */
function countingDatabase(path: string, runs: { n: number; counting: boolean }): Database.Database {
  const db = new Database(path);
  onStatementRun(db, () => {
    if (runs.counting) runs.n++;
  });
  return db;
}
for (const [name, root] of [
  ['base', values.base],
  ['branch', values.branch],
] as const) {
  // Relative to where `npm run` was started (the script itself runs in bench/).
  const checkout = resolve(process.env.INIT_CWD ?? process.cwd(), root);
  const module = (await import(join(checkout, 'packages/engine/src/index.ts'))) as {
    createMemoryEngine: CreateEngine;
  };
  const runs = { n: 0, counting: false };
  const path = join(dir, `${name}.db`);
  const engine = await module.createMemoryEngine({
    database: values.statements ? { database: countingDatabase(path, runs) } : { path },
    embedder: replayEmbedder(fixture),
    config: { limits: { maxBatchInputs: 100_000 } },
  });
  sides.push({ name, engine, cpu: 0, wall: 0, n: 0, runs });
}
const agentId = 'bench';
for (let round = 0; round < rounds; round++) {
  // Which side goes first alternates too.
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
    const segment = inputs.slice(round * per, (round + 1) * per);
    side.runs.counting = round >= warm;
    const cpuStarted = process.cpuUsage();
    const started = performance.now();
    if (mode === 'single') for (const input of segment) await side.engine.remember({ agentId, ...input });
    else await side.engine.rememberMany({ agentId, memories: segment });
    const cpu = process.cpuUsage(cpuStarted);
    side.runs.counting = false;
    if (round < warm) continue;
    side.cpu += cpu.user + cpu.system;
    side.wall += (performance.now() - started) * 1000;
    side.n += segment.length;
  }
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`${mode}: ${rounds - warm} measured rounds of ${per} memories per side; load average ${load}`);
for (const side of sides)
  console.log(
    `${side.name.padEnd(7)} ${fmt(side.cpu / side.n, 1).padStart(7)} µs cpu ${fmt(side.wall / side.n, 1).padStart(7)} µs wall per memory${
      values.statements ? `, ${fmt(side.runs.n / side.n, 2)} statements per memory` : ''
    }`,
  );
for (const side of sides) await side.engine.close();
rmSync(dir, { recursive: true, force: true });
