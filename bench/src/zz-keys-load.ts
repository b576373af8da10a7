// Scratch (not committed): a checked-kind bulk load through one checkout's engine, GC pauses and slices.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { createHashingEmbedder } from '@memory/providers';
import { watchLoop } from './loop-watch.js';
import { word } from './pseudo-words.js';

const [root, nArg] = process.argv.slice(2);
const n = Number(nArg ?? 500000);
const checkout = resolve(root as string);
const { createMemoryEngine } = (await import(join(checkout, 'packages/engine/src/index.ts'))) as {
  createMemoryEngine: (o: unknown) => Promise<{ rememberMany(i: unknown): Promise<unknown>; close(): Promise<void> }>;
};
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const text = (i: number) => `The ${word(i)} sync runs at ${8 + (i % 9)}:00 on ${DAYS[i % 5]}`;
const dir = mkdtempSync(join(tmpdir(), 'keys-load-'));
const engine = await createMemoryEngine({
  database: { path: join(dir, 'x.db') },
  embedder: createHashingEmbedder({ dimensions: 64 }),
  config: { limits: { maxBatchInputs: 100_000 } },
});
const pauses: number[] = [];
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
    if (kind === 4 /* major */) pauses.push(e.duration);
  }
});
obs.observe({ entryTypes: ['gc'] });
const watch = watchLoop(50);
const t0 = performance.now();
const cpu0 = process.cpuUsage();
for (let start = 0; start < n; start += 1000) {
  await setImmediate();
  const memories = Array.from({ length: 1000 }, (_, k) => ({ content: text(start + k), type: 'decision' }));
  await engine.rememberMany({ agentId: 'a', memories });
}
const wall = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
const stall = watch.stop();
obs.disconnect();
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
pauses.sort((a, b) => b - a);
console.log(
  `${root} n=${n}: ${(wall / 1000).toFixed(1)} s wall, ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s cpu; longest slice ${watch.slice()?.toFixed(0)} ms, gaps>50ms ${watch.over()}, longest stall ${stall.toFixed(0)} ms; major GCs ${pauses.length}, total ${pauses.reduce((a, b) => a + b, 0).toFixed(0)} ms, longest ${(pauses[0] ?? 0).toFixed(1)} ms (top 5: ${pauses.slice(0, 5).map((p) => p.toFixed(1)).join(', ')}); heapUsed ${(process.memoryUsage().heapUsed / 1048576).toFixed(0)} MB; load ${load}`,
);
await engine.close();
rmSync(dir, { recursive: true, force: true });
