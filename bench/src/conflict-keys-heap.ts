// The conflict key index's footprint (packages/ingest/src/conflict-keys.ts): the real
// `ConflictKeyIndex` of each given checkout, built over one database of N memories of a checked
// kind in one agent, each with its own conflict key. Measured after full collections around the
// build: the live JS heap (`heapUsed`, what every major GC marks) and ArrayBuffer contents
// (`arrayBuffers`, typed arrays' storage: outside the heap, never scanned), the build's CPU and
// wall time, and the time of a full collection (`gc()`) with the index live. Both checkouts' sources are imported in one process (run from the bench package, as
// `npm run` does, with `--conditions=@memory/source`), and take turns, each on a fresh store handle.
//   npm run bench:conflict-keys-heap -- --base ../main --branch . --sizes 100000,1000000
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createSequentialIds } from '@memory/core';
import { createMemories, type MemoryWriteDeps, type NewMemory, openStore, prepareContent } from '@memory/store';
import { word } from './pseudo-words.js';
import { fmt } from './stats.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    branch: { type: 'string' },
    sizes: { type: 'string', default: '100000' },
    /** Builds per side and size (sides alternate, the first side alternating too). */
    repeats: { type: 'string', default: '2' },
  },
});
if (!values.base || !values.branch) throw new Error('give --base and --branch: two set-up checkouts');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run under node --expose-gc');
const collect = async () => {
  for (let i = 0; i < 4; i++) {
    gc();
    await setImmediate();
  }
};

const TYPES = ['decision'] as const;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
/** A decision whose conflict key is its own (the pseudo-word of `i` makes every text's key distinct). */
const text = (i: number) => `The ${word(i)} sync runs at ${8 + (i % 9)}:00 on ${DAYS[i % 5]}`;

/** A file with `n` decisions of agent `a` (and a few of `warm`, to prepare the reads first). */
async function database(dir: string, n: number): Promise<string> {
  const path = join(dir, `keys-${n}.db`);
  const store = await openStore({ path });
  const deps: MemoryWriteDeps = {
    ids: createSequentialIds(`m${n}-`),
    vectorAvailable: false,
    inlineEntityLinking: false,
  };
  const row = (agentId: string, i: number): NewMemory => ({
    agentId,
    content: prepareContent(text(i)),
    type: 'decision',
    importance: 0.5,
    audit: {},
  });
  store.write((sql) =>
    createMemories(
      sql,
      deps,
      Array.from({ length: 20 }, (_, i) => row('warm', i)),
      0,
    ),
  );
  for (let start = 0; start < n; start += 5000) {
    const batch = Array.from({ length: Math.min(5000, n - start) }, (_, k) => row('a', start + k));
    store.write((sql) => createMemories(sql, deps, batch, 0));
  }
  store.close();
  return path;
}

interface Index {
  refresh(store: unknown, agentId: string, types: readonly string[]): Promise<void>;
  candidates(agentId: string, hash: number): readonly unknown[];
}
interface Side {
  readonly name: string;
  readonly Index: new () => Index;
  readonly keyHash: (type: string, content: string, links: readonly string[]) => number | undefined;
  readonly openStore: (options: { path: string }) => Promise<{ close(): void }>;
}

const sides: Side[] = [];
for (const [name, root] of [
  ['base', values.base],
  ['branch', values.branch],
] as const) {
  const checkout = resolve(process.env.INIT_CWD ?? process.cwd(), root);
  const keys = (await import(join(checkout, 'packages/ingest/src/conflict-keys.ts'))) as {
    ConflictKeyIndex: new () => Index;
    keyHash: Side['keyHash'];
  };
  const store = (await import(join(checkout, 'packages/store/src/index.ts'))) as { openStore: Side['openStore'] };
  sides.push({ name, Index: keys.ConflictKeyIndex, keyHash: keys.keyHash, openStore: store.openStore });
}

const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const dir = mkdtempSync(join(tmpdir(), 'memory-keys-heap-'));
const MB = 1024 * 1024;
try {
  for (const n of values.sizes.split(',').map(Number)) {
    const started = performance.now();
    const path = await database(dir, n);
    console.log(`${n} memories written in ${fmt((performance.now() - started) / 1000, 1)} s; load average ${load()}`);
    for (let r = 0; r < Number(values.repeats); r++) {
      for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
        const store = await side.openStore({ path });
        let index: Index | undefined = new side.Index();
        await index.refresh(store, 'warm', TYPES);
        index = new side.Index();
        await collect();
        const before = process.memoryUsage();
        const cpu = process.cpuUsage();
        const t0 = performance.now();
        await index.refresh(store, 'a', TYPES);
        const wall = performance.now() - t0;
        const used = process.cpuUsage(cpu);
        await collect();
        const after = process.memoryUsage();
        // A full collection with the index live (the shortest of three): what a major GC costs with it.
        let pause = Number.POSITIVE_INFINITY;
        for (let i = 0; i < 3; i++) {
          const t = performance.now();
          gc();
          pause = Math.min(pause, performance.now() - t);
        }
        // The index answers: the last memory's key finds it.
        const found = index.candidates('a', side.keyHash('decision', text(n - 1), []) as number).length;
        const heap = after.heapUsed - before.heapUsed;
        const buffers = after.arrayBuffers - before.arrayBuffers;
        console.log(
          `${side.name.padEnd(7)} n=${n}: heap +${fmt(heap / MB, 1)} MB (${fmt(heap / n, 1)} B/memory), array buffers +${fmt(
            buffers / MB,
            1,
          )} MB (${fmt(buffers / n, 1)} B/memory); build ${fmt(wall, 0)} ms wall, ${fmt(
            (used.user + used.system) / 1000,
            0,
          )} ms cpu; full GC ${fmt(pause, 1)} ms; last key finds ${found}; load average ${load()}`,
        );
        index = undefined;
        store.close();
        await collect();
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
