// Where a written memory's CPU goes, beside the raw better-sqlite3 floor (issue 20 item 5), from
// Linux `perf` samples of every thread of the process: time inside SQLite (statements, COMMIT, WAL
// checkpoints), V8's compiler and GC threads, and the main thread's JavaScript grouped by
// subsystem. Process-CPU timers around single statements cannot do this: they count every thread
// (V8's compiler and GC threads, the checkpoint worker), so whatever runs beside a statement lands
// in it (session 8 read twice the floor's cost per statement that way). Each load runs in a child
// process started with `--perf-basic-prof` (so JIT frames have names); `perf record -g` attaches
// once the corpus is ready and stops when the load ends. Needs `perf` (linux-tools) and
// perf_event_paranoid ≤ 2; prints why and exits otherwise. The floor is bench:write's (same rows,
// same migrated schema and pragmas, plus a vec0 row per memory).
//   npm run bench:write-perf
//   npm run bench:write-perf -- --count 20000 --single 3000 --loads bulk,floor
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type LoadKind, runLoad } from './write-perf-load.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '20000' },
    single: { type: 'string', default: '3000' },
    /** Comma-separated: bulk (rememberMany), single (remember), floor (bulk floor + vec0), floor-single. */
    loads: { type: 'string', default: 'floor,bulk,floor-single,single' },
    frequency: { type: 'string', default: '999' },
    /** Internal: run one load in this process and wait for the parent's go. */
    child: { type: 'string' },
  },
});

if (values.child) {
  await runLoad(values.child as LoadKind, Number(values.count), {
    ready: () => process.stdout.write('READY\n'),
    go: () => new Promise<void>((resolve) => process.stdin.once('data', () => resolve())),
  });
  process.stdout.write('DONE\n');
  process.exit(0);
}

const probe = spawnSync('perf', ['--version'], { encoding: 'utf8' });
if (probe.status !== 0) {
  console.log('perf is not available (install linux-tools); nothing measured');
  process.exit(0);
}
const dir = mkdtempSync(join(tmpdir(), 'memory-write-perf-'));
const script = fileURLToPath(import.meta.url);

/** Samples of one load: every thread's stacks (innermost frame first). */
interface Sampled {
  readonly mainTid: string;
  readonly stacks: ReadonlyArray<{ tid: string; frames: string[] }>;
}

async function sample(kind: LoadKind, count: number): Promise<Sampled> {
  const out = join(dir, `${kind}.data`);
  const child = spawn(
    process.execPath,
    [
      '--perf-basic-prof',
      `--logfile=${join(dir, 'v8.log')}`,
      '--no-logfile-per-isolate',
      ...process.execArgv,
      script,
      '--child',
      kind,
      '--count',
      String(count),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout as NonNullable<ChildProcess['stdout']> });
  const next = (want: string) =>
    new Promise<void>((resolve, reject) => {
      const onLine = (line: string) => {
        if (line.trim() !== want) return;
        lines.off('line', onLine);
        resolve();
      };
      lines.on('line', onLine);
      child.once('exit', (code) => reject(new Error(`load ${kind} exited (${code}) before ${want}`)));
    });
  await next('READY');
  const perf = spawn('perf', ['record', '-q', '-g', '-F', values.frequency, '-o', out, '-p', String(child.pid)], {
    stdio: 'ignore',
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  child.stdin?.write('go\n');
  await next('DONE');
  const stopped = new Promise((resolve) => perf.once('exit', resolve));
  perf.kill('SIGINT');
  await stopped;
  await exited;
  const dump = spawnSync('perf', ['script', '-i', out, '-F', 'tid,ip,sym,dso'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const text = dump.stdout;
  // The JIT's symbol map (perf reads it in `perf script`, above).
  rmSync(join(tmpdir(), `perf-${child.pid}.map`), { force: true });
  const stacks: Array<{ tid: string; frames: string[] }> = [];
  let current: { tid: string; frames: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (current) stacks.push(current);
      current = undefined;
    } else if (!line.startsWith('\t')) current = { tid: line.trim().split(/\s+/)[0] as string, frames: [] };
    else current?.frames.push(line.trim().replace(/^\S+\s+/, ''));
  }
  if (current) stacks.push(current);
  return { mainTid: String(child.pid), stacks };
}

// The main thread's JavaScript, by the innermost frame of ours that matches (first rule wins).
const AREAS: ReadonlyArray<[string, RegExp]> = [
  ['JS: validation (zod)', /zod|validateAll|validation\.ts|parseInput/],
  ['JS: normalize + sha256', /prepareContent|normalizeFor|hashNormalized|prepareText|prepareBatch/],
  ['JS: scoped text index (terms, postings)', /textTerms|text-terms|indexTextRows|text-index/],
  ['JS: conflict detection', /conflict/],
  ['JS: vectors (blobs, index writer)', /embeddings\.ts|vector-index|allFinite|vectorBlob|vec-rows|embedTexts/],
  ['JS: memory writer (rows, history, ids)', /create-memories|derived\.ts|history\.ts|memories\.ts|ids\.ts/],
  [
    'JS: program runner, driver binding, store.write',
    /run-sqlite|program\.ts|internal\/sql\.ts|better-sqlite3|run-writer|open-store|transaction-guard|async_hooks/,
  ],
  ['JS: engine, ingest glue, the floor loop', /packages\/|write-perf-load/],
];

function account({ mainTid, stacks }: Sampled): Map<string, number> {
  const parts = new Map<string, number>();
  const add = (part: string) => parts.set(part, (parts.get(part) ?? 0) + 1);
  const any = (frames: string[], re: RegExp, depth = frames.length) => frames.slice(0, depth).some((f) => re.test(f));
  for (const { tid, frames } of stacks) {
    if (any(frames, /walCheckpoint/)) add('SQLite: WAL checkpoints (any thread)');
    else if (tid !== mainTid) {
      if (any(frames, /compiler::|Compiler::|Compile/)) add('V8 compiler (other threads)');
      else add('V8 GC and other threads');
    } else if (any(frames, /sqlite3_step/)) {
      add(any(frames, /sqlite3VdbeHalt|sqlite3BtreeCommit/) ? 'SQLite: COMMIT' : 'SQLite: statements');
    } else if (any(frames, /Scavenge|MarkCompact|Heap::CollectGarbage/, 15)) add('main: GC');
    else if (any(frames, /compiler::|Compiler::|CompileLazy/, 20)) add('main: compile');
    else {
      const ours = frames.filter((f) => f.startsWith('JS:'));
      let part = 'main: event loop, kernel, libc';
      for (const frame of ours) {
        const hit = AREAS.find(([, re]) => re.test(frame));
        if (hit) {
          part = hit[0];
          break;
        }
      }
      add(part);
    }
  }
  return parts;
}

const total = Number(values.count);
const singles = Math.min(Number(values.single), total);
const period = 1e6 / Number(values.frequency);
const loads = (values.loads ?? '').split(',').filter(Boolean) as LoadKind[];
const results = new Map<LoadKind, Map<string, number>>();
for (const kind of loads) {
  const count = kind === 'single' || kind === 'floor-single' ? singles : total;
  const parts = account(await sample(kind, count));
  // µs of CPU per memory.
  results.set(kind, new Map([...parts].map(([part, n]) => [part, (n * period) / count])));
}
const names = [...new Set([...results.values()].flatMap((parts) => [...parts.keys()]))].sort(
  (a, b) =>
    Math.max(...[...results.values()].map((p) => p.get(b) ?? 0)) -
    Math.max(...[...results.values()].map((p) => p.get(a) ?? 0)),
);
console.log(
  `µs of CPU per memory from perf samples (${values.frequency} Hz, every thread), ${total.toLocaleString('en-US')} bulk / ${singles.toLocaleString('en-US')} single`,
);
console.log(`${'part'.padEnd(50)} ${loads.map((k) => k.padStart(12)).join(' ')}`);
for (const name of names)
  console.log(
    `${name.padEnd(50)} ${loads.map((k) => (results.get(k)?.get(name) ?? 0).toFixed(1).padStart(12)).join(' ')}`,
  );
console.log(
  `${'total'.padEnd(50)} ${loads
    .map((k) =>
      [...(results.get(k)?.values() ?? [])]
        .reduce((a, b) => a + b, 0)
        .toFixed(1)
        .padStart(12),
    )
    .join(' ')}`,
);
rmSync(dir, { recursive: true, force: true });
