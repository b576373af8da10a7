// Where single `remember` calls go (issue 20 item 5): one checkout's engine (bench:write's synthetic
// corpus, 384-d precomputed vectors, one agent, a file database), warmed up, then either the
// statements each call runs, per SQL text (every run of a prepared statement; BEGIN and COMMIT,
// run by the driver's transaction function, are not counted), or a V8 CPU profile of the calls
// (main thread, sampled every 100 µs): self time by function, a native statement call named by the
// JavaScript functions above it, then inclusive time by function. Profile `--root ../other-checkout` and
// `--root .` one after the other to compare two checkouts.
//   npm run bench:remember-profile -- --root .
//   npm run bench:remember-profile -- --root ../other-checkout --profile
import { mkdtempSync, rmSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { createDenseEmbedder } from './dense-embedder.js';
import { onStatementRun } from './statement-runs.js';
import { fmt } from './stats.js';
import { distinctMemories } from './synthetic.js';
import { embedFixture, replayEmbedder } from './vector-fixture.js';

const { values } = parseArgs({
  options: {
    /** The checkout whose engine runs (set up with `scripts/setup.sh`). */
    root: { type: 'string', default: '.' },
    count: { type: 'string', default: '3000' },
    warm: { type: 'string', default: '500' },
    profile: { type: 'boolean', default: false },
    top: { type: 'string', default: '30' },
  },
});
const count = Number(values.count);
const warm = Number(values.warm);
const top = Number(values.top);
const inputs = distinctMemories(count + warm);
const fixture = await embedFixture(
  createDenseEmbedder(384),
  inputs.map((i) => i.content),
);

interface WriteEngine {
  remember(input: unknown): Promise<unknown>;
  close(): Promise<void>;
}
// Relative to where `npm run` was started (the script itself runs in bench/).
const root = resolve(process.env.INIT_CWD ?? process.cwd(), values.root);
const module = (await import(join(root, 'packages/engine/src/index.ts'))) as {
  createMemoryEngine: (options: unknown) => Promise<WriteEngine>;
};
const dir = mkdtempSync(join(tmpdir(), 'memory-remember-profile-'));
const db = new Database(join(dir, 'engine.db'));
const runs = new Map<string, number>();
const counting = { on: false };
if (!values.profile) {
  // Every prepared statement counts its runs by SQL text while `counting.on`.
  onStatementRun(db, (source) => {
    if (counting.on) runs.set(source, (runs.get(source) ?? 0) + 1);
  });
}
const engine = await module.createMemoryEngine({
  database: { database: db },
  embedder: replayEmbedder(fixture),
  config: {},
});
const agentId = 'bench';
for (const input of inputs.slice(0, warm)) await engine.remember({ agentId, ...input });

let session: Session | undefined;
if (values.profile) {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
}
counting.on = true;
const cpuStarted = process.cpuUsage();
for (const input of inputs.slice(warm)) await engine.remember({ agentId, ...input });
const cpu = process.cpuUsage(cpuStarted);
counting.on = false;
console.log(
  `${root}: ${count.toLocaleString('en-US')} remember calls, ${fmt((cpu.user + cpu.system) / count, 1)} µs process CPU a call${values.profile ? ' (profiled)' : ''}`,
);

if (session) {
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const samples = new Map<number, number>();
  for (const id of profile.samples ?? []) samples.set(id, (samples.get(id) ?? 0) + 1);
  const total = profile.samples?.length ?? 1;
  const where = (url: string) =>
    url
      .replace(/^.*\/(packages|node_modules)\//, '$1/')
      .replace('node_modules/.pnpm/', '')
      .split('/')
      .slice(-3)
      .join('/');
  const name = (id: number): string => {
    const frame = nodes.get(id)?.callFrame;
    if (!frame) return '?';
    return `${frame.functionName || '(anonymous)'} ${where(frame.url)}`.trim();
  };
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, n] of samples) {
    const frame = nodes.get(id)?.callFrame;
    let label = name(id);
    if (frame && frame.url === '' && ['run', 'get', 'all', 'iterate'].includes(frame.functionName)) {
      // A statement call: named by the (up to three) JavaScript functions above it.
      const callers: string[] = [];
      for (let up = parentOf.get(id); up !== undefined && callers.length < 3; up = parentOf.get(up)) {
        const caller = nodes.get(up)?.callFrame;
        if (caller && caller.url !== '') callers.push(caller.functionName || '(anonymous)');
      }
      label = `${frame.functionName} (native) <- ${callers.join(' <- ')}`;
    }
    self.set(label, (self.get(label) ?? 0) + n);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const fn = name(at);
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + n);
    }
  }
  const show = (title: string, table: Map<string, number>) => {
    console.log(title);
    for (const [label, n] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`  ${fmt((100 * n) / total, 1).padStart(5)}%  ${label.slice(0, 120)}`);
  };
  show(`self time (main thread, ${total} samples):`, self);
  show('inclusive time:', inclusive);
} else {
  let sum = 0;
  console.log('statements a call, by SQL text:');
  for (const [source, n] of [...runs].sort((a, b) => b[1] - a[1])) {
    sum += n;
    console.log(`  ${fmt(n / count, 3).padStart(6)}  ${source.replace(/\s+/g, ' ').slice(0, 140)}`);
  }
  console.log(`  ${fmt(sum / count, 2).padStart(6)}  in all`);
}
await engine.close();
db.close();
rmSync(dir, { recursive: true, force: true });
