import { readFileSync } from 'node:fs';
import { STOP_WORDS } from '@memory/core';
import { afterAll, describe, expect, it } from 'vitest';
import { createOfflineEmbedder } from '../src/index.js';
import { type EmbedModel, embedText, indexWords } from '../src/offline/embed-text.js';
import type { EmbedWorkerData } from '../src/offline/embed-worker.js';
import { startEmbedWorker } from '../src/offline/embed-worker-client.js';
import { DEFAULT_VECTORS_PATH } from '../src/offline/embedder.js';
import { decodeWordVectorFile } from '../src/offline/format.js';
import { indexWordsSliced } from '../src/offline/index-words.js';

// Issue 11, item 13: the offline embedder's per-text work moves off the event loop for large
// batches, with the same results as in-process.

const WORDS = ['kettle', 'cupboard', 'Kestrel', 'budget', 'tea', 'migration', 'Dana', 'zqxjv', 'the', 'of', 'Alice’s'];
const text = (n: number, words: number) =>
  Array.from({ length: words }, (_, i) => `${WORDS[(n * 7 + i * 3) % WORDS.length]}${i % 9 === 8 ? '.' : ''}`).join(
    ' ',
  );

const inProcess = createOfflineEmbedder({ workerMinChars: Number.POSITIVE_INFINITY, worker: false });
const offLoop = createOfflineEmbedder({ workerMinChars: 0 });
afterAll(() => offLoop.close());

/** The model as the embedder hands it to its worker, and the same model in this thread. */
function models(): { data: EmbedWorkerData; here: EmbedModel } {
  const file = decodeWordVectorFile(readFileSync(DEFAULT_VECTORS_PATH));
  const data = {
    dimensions: file.header.dimensions,
    oovNorm: file.header.oovNorm,
    components: file.components,
    scales: file.scales,
    vectors: file.vectors,
    words: file.wordsText,
    stopWords: [...STOP_WORDS],
  };
  return { data, here: { ...data, index: indexWords(file.wordsText.split('\n')), stopWords: STOP_WORDS } };
}

describe('the embedding worker thread', () => {
  it('starts from the TypeScript sources and answers with the vectors computed in this thread', async () => {
    // Through the embedder, a worker that fails to start is invisible (it falls back in-process with
    // the same vectors): this talks to the worker itself, so a worker that cannot run fails here.
    const { data, here } = models();
    const client = startEmbedWorker(data);
    expect(client).toBeDefined();
    try {
      const texts = ['Alice’s kettle is in the cupboard', '', 'zqxjv budget', text(3, 400)];
      const there = await client?.embed(texts);
      expect(there?.map((v) => [...v])).toEqual(texts.map((t) => [...embedText(here, t)]));
    } finally {
      await client?.close();
    }
  });

  it('rejects the batches of a worker that dies, and every later one', async () => {
    const { data } = models();
    // A vocabulary that is not a string: the worker throws while loading and exits.
    const client = startEmbedWorker({ ...data, words: 42 as unknown as string });
    await expect(client?.embed(['tea'])).rejects.toThrow();
    await expect(client?.embed(['tea'])).rejects.toThrow();
    await client?.close();
  });

  it('indexes the vocabulary in slices with the same rows as in one go', async () => {
    const words = ['the', 'tea', '', 'café', 'tea', 'kettle', ''];
    const { index, rows } = await indexWordsSliced(words.join('\n'));
    expect(rows).toBe(words.length);
    expect([...index]).toEqual([...indexWords(words)]);
    const { wordsText } = decodeWordVectorFile(readFileSync(DEFAULT_VECTORS_PATH));
    const sliced = await indexWordsSliced(wordsText);
    expect([...sliced.index]).toEqual([...indexWords(wordsText.split('\n'))]);
  });
});

describe('offline embedder worker', () => {
  it('gives bit-identical vectors to the in-process path', async () => {
    const texts = [
      '',
      'the of and',
      '😀😀',
      'Alice’s kettle is in the cupboard',
      ...Array.from({ length: 40 }, (_, i) => text(i, 50 + i * 13)),
    ];
    const here = await inProcess.embed(texts);
    const there = await offLoop.embed(texts);
    expect(there).toHaveLength(texts.length);
    for (const [i, v] of there.entries()) expect([...v]).toEqual([...(here[i] as Float32Array)]);
  });

  it('keeps the event loop free while a large batch is embedded', async () => {
    const big = Array.from({ length: 64 }, (_, i) => text(i, 12_000)); // ~64 × 80 kB
    await offLoop.embed(['warm up the worker']);
    // What the batch holds the loop for when embedded in one go on the main thread.
    const started = performance.now();
    await inProcess.embed(big);
    const blocking = performance.now() - started;
    // The event loop's own account of the time it ran callbacks (not waiting for I/O) while the
    // worker embeds: sending the batch and taking the vectors back. The longest gap of a 1 ms timer
    // measured this before, and a loaded machine's scheduling gaps while the loop sat idle failed it
    // (118 ms against a bound of 104 ms at load average 18, 1 run in 3). Embedding on this thread,
    // in one go or in slices, keeps the loop busy for about `blocking`.
    const before = performance.eventLoopUtilization();
    await offLoop.embed(big);
    const busy = performance.eventLoopUtilization(before).active;
    expect(busy).toBeLessThan(blocking / 3);
  });

  it('slices a large batch in-process when it has no worker, with the same results', async () => {
    const sliced = createOfflineEmbedder({ workerMinChars: 0, worker: false });
    const big = Array.from({ length: 64 }, (_, i) => text(i, 12_000));
    const started = performance.now();
    const here = await inProcess.embed(big);
    const blocking = performance.now() - started;
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const there = await sliced.embed(big);
    clearInterval(timer);
    for (const [i, v] of there.entries()) expect([...v]).toEqual([...(here[i] as Float32Array)]);
    // The loop ran between slices: roughly once per 10 ms of work.
    expect(ticks).toBeGreaterThan(Math.min(5, blocking / 40));
  });
});
