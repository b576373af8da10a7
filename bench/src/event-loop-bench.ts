// The longest event-loop stall while the engine does big work: ingesting a 50 MB document, and
// rememberMany taking 1,000 × 64 KiB items, both with the offline embedder (issue 11, item 13:
// targets ≤ 50 ms each). A host serving requests on the same loop waits at most this long.
//   npm run bench:event-loop
//   npm run bench:event-loop -- --doc-mb 10 --items 200 --embedder none|offline|offline-inprocess
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createMemoryEngine, type EmbeddingProvider } from '@memory/engine';
import { createOfflineEmbedder } from '@memory/providers';
import { fmt } from './stats.js';

const { values } = parseArgs({
  allowPositionals: true,
  options: {
    'doc-mb': { type: 'string', default: '50' },
    items: { type: 'string', default: '1000' },
    'item-kib': { type: 'string', default: '64' },
    embedder: { type: 'string', default: 'offline' },
    target: { type: 'string', default: '50' },
  },
});
const docBytes = Number(values['doc-mb']) * 1_000_000;
const items = Number(values.items);
const itemBytes = Number(values['item-kib']) * 1024;
const targetMs = Number(values.target);

/**
 * Watches the event loop from a timer that asks to run every millisecond: the longest gap between
 * two runs, less the 1 ms it asked for, is the longest time the loop was held.
 */
function watchLoop(): { stop(): number; gc(): number } {
  let last = performance.now();
  let longest = 0;
  let longestGc = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last - 1);
    last = now;
  }, 1);
  // Garbage-collection pauses of this thread, reported apart: they stall the loop too, but they
  // follow the heap's size, not how the work is sliced.
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longestGc = Math.max(longestGc, entry.duration);
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      clearInterval(timer);
      observer.disconnect();
      return Math.max(longest, performance.now() - last - 1);
    },
    gc: () => longestGc,
  };
}

const WORDS = [
  'quarterly',
  'planning',
  'review',
  'covers',
  'budget',
  'hiring',
  'release',
  'train',
  'vendor',
  'migration',
  'Kestrel',
  'Borealis',
  'incident',
  'pricing',
  'roadmap',
  'the',
  'and',
  'of',
];
/** Prose-like text of about `bytes` bytes (ASCII), with sentences and paragraphs. */
function prose(bytes: number, seed: number): string {
  const parts: string[] = [];
  let size = 0;
  let x = seed >>> 0 || 1;
  for (let i = 0; size < bytes; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const word = WORDS[x % WORDS.length] as string;
    const tail = i % 17 === 16 ? (i % 85 === 84 ? '.\n\n' : '. ') : ' ';
    parts.push(word, tail);
    size += word.length + tail.length;
  }
  return parts.join('').slice(0, bytes);
}

/** The longest stall of an idle process over `ms`: what the machine itself adds (other load, the OS). */
async function idleBaseline(ms: number): Promise<number> {
  const watch = watchLoop();
  await new Promise((resolve) => setTimeout(resolve, ms));
  return watch.stop();
}

// `offline` embeds large batches on its worker thread; `offline-inprocess` keeps them on the main
// thread in ~10 ms slices (for comparison); `none` stores no vectors.
const embedder: EmbeddingProvider | undefined =
  values.embedder === 'offline'
    ? createOfflineEmbedder()
    : values.embedder === 'offline-inprocess'
      ? createOfflineEmbedder({ worker: false })
      : undefined;
const dir = mkdtempSync(join(os.tmpdir(), 'memory-event-loop-bench-'));
const results: Array<{ name: string; stall: number; gc: number; seconds: number; detail: string }> = [];

// 1. A 50 MB document, from documents.add to done.
{
  const text = prose(docBytes, 7);
  const engine = await createMemoryEngine({
    database: { path: join(dir, 'document.db') },
    ...(embedder ? { embedder } : {}),
    config: { documents: { maxBytes: 64 * 1024 * 1024 }, hints: { enabled: false } },
  });
  const watch = watchLoop();
  const t0 = performance.now();
  const { id } = await engine.documents.add({ agentId: 'bench', content: text, title: 'Planning handbook' });
  await engine.runDue();
  const seconds = (performance.now() - t0) / 1000;
  const stall = watch.stop();
  const doc = await engine.documents.get({ agentId: 'bench', id });
  results.push({
    name: `document ${fmt(docBytes / 1e6, 0)} MB`,
    stall,
    gc: watch.gc(),
    seconds,
    detail: `${doc?.chunkCount} chunks, status ${doc?.status}`,
  });
  await engine.close();
}

// 2. rememberMany with 1,000 items of 64 KiB.
{
  const memories = Array.from({ length: items }, (_, i) => ({ content: prose(itemBytes, i + 1) }));
  const engine = await createMemoryEngine({
    database: { path: join(dir, 'remember.db') },
    ...(embedder ? { embedder } : {}),
    config: { hints: { enabled: false } },
  });
  const watch = watchLoop();
  const t0 = performance.now();
  const stored = await engine.rememberMany({ agentId: 'bench', memories });
  const seconds = (performance.now() - t0) / 1000;
  const stall = watch.stop();
  results.push({
    name: `rememberMany ${items} × ${fmt(itemBytes / 1024, 0)} KiB`,
    stall,
    gc: watch.gc(),
    seconds,
    detail: `${stored.length} stored`,
  });
  await engine.close();
}
await (embedder as { close?: () => Promise<void> } | undefined)?.close?.();
rmSync(dir, { recursive: true, force: true });
const idle = await idleBaseline(3000);

console.log(`embedder: ${values.embedder}; target: longest stall ≤ ${targetMs} ms`);
console.log(
  `idle baseline (nothing running, 3 s)  longest stall ${fmt(idle, 1).padStart(7)} ms  (machine load ${os.loadavg()[0]?.toFixed(1)})`,
);
for (const r of results) {
  console.log(
    `${r.name.padEnd(30)} longest stall ${fmt(r.stall, 1).padStart(7)} ms  ${r.stall <= targetMs ? 'ok  ' : 'OVER'}  (longest GC pause ${fmt(r.gc, 1)} ms; ${fmt(r.seconds, 2)} s, ${r.detail})`,
  );
}
