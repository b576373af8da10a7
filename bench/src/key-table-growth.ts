// The conflict key index's table (packages/ingest/src/seq-key-table.ts) under a bulk load: every
// `set` of N sequential seqs (each with its own key) timed on its own, for each given checkout's
// table in one process. A table that places every entry again when it doubles shows that call as
// the longest set; one that grows over the following sets does not. Prints the longest set, the
// 99.99th percentile, sets over 1 ms, and the whole run's time.
//   npm run bench:key-table-growth -- --base ../main --branch . --count 2000000
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { fmt, percentile } from './stats.js';

const { values } = parseArgs({
  options: {
    base: { type: 'string' },
    branch: { type: 'string' },
    count: { type: 'string', default: '2000000' },
    /** Runs per side (sides alternate). */
    repeats: { type: 'string', default: '2' },
  },
});
if (!values.base || !values.branch) throw new Error('give --base and --branch: two set-up checkouts');
const count = Number(values.count);

interface Table {
  set(seq: number, key: number): void;
  readonly size: number;
}
type TableClass = new () => Table;

async function tableOf(checkout: string): Promise<TableClass> {
  const module = (await import(join(resolve(checkout), 'packages/ingest/src/seq-key-table.ts'))) as {
    SeqKeyTable: TableClass;
  };
  return module.SeqKeyTable;
}

function run(Table: TableClass): { longest: number; atSize: number; p9999: number; over1: number; total: number } {
  const table = new Table();
  const times = new Float64Array(count);
  const started = performance.now();
  for (let seq = 1; seq <= count; seq++) {
    const t = performance.now();
    table.set(seq, Math.imul(seq, 0x01000193) >>> 0);
    times[seq - 1] = performance.now() - t;
  }
  const total = performance.now() - started;
  let longest = 0;
  let atSize = 0;
  let over1 = 0;
  for (let i = 0; i < count; i++) {
    const ms = times[i] as number;
    if (ms > 1) over1++;
    if (ms > longest) {
      longest = ms;
      atSize = i;
    }
  }
  return { longest, atSize, p9999: percentile([...times], 99.99), over1, total };
}

const sides = { base: await tableOf(values.base), branch: await tableOf(values.branch) };
console.log(`${count.toLocaleString('en-US')} sequential sets, one key each; ms per set`);
for (let r = 0; r < Number(values.repeats); r++) {
  const order = r % 2 === 0 ? (['base', 'branch'] as const) : (['branch', 'base'] as const);
  for (const side of order) {
    const m = run(sides[side]);
    console.log(
      `${side.padEnd(6)} longest ${fmt(m.longest, 2)} (at ${m.atSize.toLocaleString('en-US')} entries), p99.99 ${fmt(m.p9999, 4)}, sets over 1 ms ${m.over1}, all ${fmt(m.total / 1000, 2)} s`,
    );
  }
}
