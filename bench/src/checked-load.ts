// A bulk load of one checked kind (decisions: every item's conflict key is looked up and kept in
// the key index) into one agent, through the public API, watched from the event loop: the longest
// stall, the longest synchronous slice (this thread's CPU between two turns, Linux) and every gap
// over the target with the memory count it came at (issue 20, item 4: no slice over 50 ms at 1M).
// Each decision has its own key, so the index grows by one entry per memory.
//   npm run bench:checked-load -- --count 1000000
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { createMemoryEngine } from '@memory/engine';
import { createHashingEmbedder } from '@memory/providers';
import { type LoopGap, watchLoop } from './loop-watch.js';
import { word } from './pseudo-words.js';
import { fmt } from './stats.js';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '200000' },
    /** Memories per rememberMany call. */
    per: { type: 'string', default: '1000' },
    dimensions: { type: 'string', default: '64' },
    target: { type: 'string', default: '50' },
  },
});
const count = Number(values.count);
const per = Number(values.per);
const targetMs = Number(values.target);

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
/** A decision whose conflict key is its own (the pseudo-word of `i` makes every text's key distinct). */
const text = (i: number) => `The ${word(i)} sync runs at ${8 + (i % 9)}:00 on ${DAYS[i % 5]}`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

const dir = mkdtempSync(join(tmpdir(), 'checked-load-'));
const engine = await createMemoryEngine({
  database: { path: join(dir, 'memory.db') },
  embedder: createHashingEmbedder({ dimensions: Number(values.dimensions) }),
  config: { limits: { maxBatchInputs: Math.max(per, 10_000) } },
});
let loaded = 0;
const gaps: Array<LoopGap & { at: number }> = [];
console.log(`${count.toLocaleString('en-US')} decisions in one agent, ${per} per rememberMany call; load ${load()}`);
const watch = watchLoop(targetMs, (gap) => gaps.push({ ...gap, at: loaded }));
const started = performance.now();
const cpu = process.cpuUsage();
for (let start = 0; start < count; start += per) {
  await setImmediate();
  const memories = Array.from({ length: Math.min(per, count - start) }, (_, k) => ({
    content: text(start + k),
    type: 'decision' as const,
  }));
  await engine.rememberMany({ agentId: 'a', memories });
  loaded = start + memories.length;
}
const wall = performance.now() - started;
const used = process.cpuUsage(cpu);
const stall = watch.stop();
console.log(
  `${fmt(wall / 1000)} s wall, ${fmt((used.user + used.system) / 1e6)} s CPU (${fmt(count / (wall / 1000), 0)}/s); longest stall ${fmt(stall)} ms, longest slice ${watch.slice() === undefined ? 'n/a' : `${fmt(watch.slice() as number)} ms`}, longest GC pause ${fmt(watch.gc())} ms; gaps over ${targetMs} ms: ${watch.over()}; load ${load()}`,
);
for (const gap of gaps)
  console.log(
    `  gap ${fmt(gap.ms)} ms (CPU ${gap.cpuMs === undefined ? 'n/a' : fmt(gap.cpuMs)}, GC ${fmt(gap.gcMs)}) after ${gap.at.toLocaleString('en-US')} memories`,
  );
await engine.close();
rmSync(dir, { recursive: true, force: true });
