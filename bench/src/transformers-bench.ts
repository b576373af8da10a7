// The transformers embedder's cost on this machine and what it does to the host's event loop:
// batches of texts through an encoder with the compute of all-MiniLM-L6-v2 (a synthetic ONNX graph
// written here: 6 residual feed-forward blocks, 384 → 1536 → 384, random weights), once on the
// worker thread (the default) and once in-process. onnxruntime-node runs a session synchronously on
// the calling thread, so in-process the loop is held for a whole batch; on the worker it is not.
// A real downloaded model can be measured instead with --model.
//   npm run bench:transformers
//   npm run bench:transformers -- --batch 32 --tokens 128 --batches 5 [--model /models/all-MiniLM-L6-v2]

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createTransformersEmbedder } from '@memory/providers';
import { watchLoop } from './loop-watch.js';
import { writeSyntheticEncoder } from './synthetic-onnx.js';

const { values } = parseArgs({
  options: {
    model: { type: 'string' },
    batch: { type: 'string', default: '32' },
    tokens: { type: 'string', default: '128' },
    batches: { type: 'string', default: '5' },
    layers: { type: 'string', default: '6' },
    hidden: { type: 'string', default: '384' },
  },
});
const batch = Number(values.batch);
const tokens = Number(values.tokens);
const batches = Number(values.batches);

const WORDS = [
  'tea',
  'coffee',
  'train',
  'river',
  'chess',
  'violin',
  'glacier',
  'lantern',
  'comet',
  'orchard',
  'ledger',
  'budget',
];
// Each text is `tokens - 2` vocabulary words: with [CLS] and [SEP], exactly `tokens` tokens.
const texts = Array.from({ length: batch }, (_, i) =>
  Array.from({ length: tokens - 2 }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length]).join(' '),
);

const dir = mkdtempSync(join(os.tmpdir(), 'bench-onnx-'));
const modelPath = values.model ?? join(dir, 'synthetic-minilm');
if (!values.model)
  writeSyntheticEncoder(modelPath, { hidden: Number(values.hidden), layers: Number(values.layers), words: WORDS });

const fmt = (n: number | undefined): string => (n === undefined ? 'n/a' : n.toFixed(1));
console.log(
  `transformers embedder: ${values.model ? modelPath : `synthetic encoder (${values.layers} layers, hidden ${values.hidden})`}; ` +
    `${batches} batches of ${batch} texts × ${tokens} tokens; load ${os.loadavg()[0]?.toFixed(2)}, ${os.cpus().length} cores`,
);
const rows: Record<string, number> = {};
for (const worker of [true, false]) {
  const started = performance.now();
  const embedder = await createTransformersEmbedder({ modelPath, worker, maxTokens: tokens, batchSize: batch });
  const loadMs = performance.now() - started;
  await embedder.embed(texts.slice(0, 2));
  const watch = watchLoop(50);
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t = performance.now();
    await embedder.embed(texts);
    times.push(performance.now() - t);
  }
  const stall = watch.stop();
  await embedder.close();
  const mean = times.reduce((a, b) => a + b, 0) / times.length;
  const label = worker ? 'worker thread' : 'in-process';
  rows[label] = stall;
  console.log(
    `  ${label.padEnd(13)} load ${fmt(loadMs)} ms; per batch ${fmt(mean)} ms (${fmt((mean / (batch * tokens)) * 1000)} µs/token); ` +
      `longest loop stall ${fmt(stall)} ms (longest synchronous slice ${fmt(watch.slice())} ms, ${watch.over()} stalls > 50 ms)`,
  );
}
console.log(
  `  longest stall in-process / on the worker: ${fmt((rows['in-process'] ?? 0) / Math.max(1e-9, rows['worker thread'] ?? 0))}× (load ${os.loadavg()[0]?.toFixed(2)}; on a loaded machine a stall is mostly waiting for a core: compare the synchronous slices)`,
);
rmSync(dir, { recursive: true, force: true });
