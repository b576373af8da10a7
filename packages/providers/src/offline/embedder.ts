import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createTimeSlicer, type EmbeddingProvider, MemoryError, STOP_WORDS } from '@memory/core';
import { type EmbedModel, embedText, indexWords } from './embed-text.js';
import { type EmbedWorkerClient, startEmbedWorker } from './embed-worker-client.js';
import { decodeWordVectors, type WordVectors } from './format.js';

/** Where the package keeps its built vectors file, seen from `src/offline/` and from the bundled `dist/`. */
export const DEFAULT_VECTORS_PATH = fileURLToPath(new URL('../../assets/glove-100d-sif.bin', import.meta.url));
const DIST_VECTORS_PATH = fileURLToPath(new URL('../assets/glove-100d-sif.bin', import.meta.url));

/**
 * The cosine at or above which conflict detection considers two texts (calibrated on the dev split
 * of bench/src/conflict-pairs.ts with `npm run bench:conflict`: the highest-recall cut with dev
 * precision ≥ 0.98). Low, because SIF cosines carry little of the decision: the lexical rule makes it.
 */
const OFFLINE_CONFLICT_THRESHOLD = 0.37;

export interface OfflineEmbedderOptions {
  /** The vectors file. @default the one shipped in this package's `assets/` */
  readonly vectorsPath?: string;
  /**
   * Batches with at least this many characters in total are embedded off the host's event loop:
   * on a worker thread, or (without one) in-process in ~10 ms slices. Smaller batches take under
   * ~5 ms and run at once (about 3 ms of CPU per 10,000 characters). Results are identical.
   * @default 16384
   */
  readonly workerMinChars?: number;
  /** Use a worker thread for large batches; `false` slices them in-process instead. @default true */
  readonly worker?: boolean;
}

interface Model extends EmbedModel {
  readonly data: WordVectors;
}

function loadModel(path: string): Model {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path);
  } catch (cause) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `offline embedder vectors file not found at ${path}; build it with "pnpm --filter @memory/providers build:vectors"`,
      { cause },
    );
  }
  const data = decodeWordVectors(buffer);
  return {
    data,
    dimensions: data.header.dimensions,
    oovNorm: data.header.oovNorm,
    components: data.components,
    scales: data.scales,
    vectors: data.vectors,
    index: indexWords(data.words),
    stopWords: STOP_WORDS,
  };
}

/** In-process embedding of a batch, yielding to the event loop between ~10 ms slices. */
async function embedHere(m: Model, texts: readonly string[]): Promise<Float32Array[]> {
  const slicer = createTimeSlicer();
  const out: Float32Array[] = [];
  for (const text of texts) {
    if (slicer.due()) await slicer.yield();
    out.push(embedText(m, text));
  }
  return out;
}

/**
 * An offline semantic embedder: GloVe word vectors (6B tokens, 100 dimensions, public domain)
 * combined by SIF — a smooth-inverse-frequency weighted average with the common component removed
 * (Arora, Liang & Ma, 2017). No network, no model server; deterministic. It captures topical
 * similarity ("drink" ~ "tea" ~ "coffee"), not sentence structure.
 *
 * Words outside the vocabulary get a hashed vector, so rare names still match themselves.
 * The vectors file loads lazily on the first `embed` call (tens of milliseconds). Large batches
 * (`workerMinChars`) run on a worker thread started on first need, which never keeps the process
 * alive; `close()` stops it. Without a worker (none can start) they run in-process in ~10 ms slices.
 */
export function createOfflineEmbedder(
  options: OfflineEmbedderOptions = {},
): EmbeddingProvider & { load(): void; close(): Promise<void> } {
  let model: Model | undefined;
  const path = options.vectorsPath;
  const workerMinChars = options.workerMinChars ?? 16_384;
  const load = (): Model => {
    if (model) return model;
    model = loadModel(path ?? (existsSync(DEFAULT_VECTORS_PATH) ? DEFAULT_VECTORS_PATH : DIST_VECTORS_PATH));
    return model;
  };
  const dimensions = 100;
  const modelName = 'glove-6b-100d-sif-abtt1';
  // undefined: not started yet; null: not wanted, could not start, or failed: stay in-process.
  let worker: EmbedWorkerClient | null | undefined = options.worker === false ? null : undefined;
  const workerFor = (m: Model): EmbedWorkerClient | null => {
    if (worker !== undefined) return worker;
    worker =
      startEmbedWorker({
        dimensions: m.dimensions,
        oovNorm: m.oovNorm,
        components: m.components,
        scales: m.scales,
        vectors: m.vectors,
        words: m.data.words.join('\n'),
        stopWords: [...m.stopWords],
      }) ?? null;
    return worker;
  };
  return {
    model: modelName,
    dimensions,
    conflictThreshold: OFFLINE_CONFLICT_THRESHOLD,
    load: () => void load(),
    async embed(texts) {
      const m = load();
      if (m.data.header.dimensions !== dimensions || m.data.header.model !== modelName) {
        throw new MemoryError(
          'INVALID_CONFIG',
          `offline embedder vectors file holds ${m.data.header.model} (${m.data.header.dimensions} dimensions), expected ${modelName}; rebuild it with --force`,
        );
      }
      let chars = 0;
      for (const text of texts) chars += text.length;
      if (chars < workerMinChars) return texts.map((text) => embedText(m, text));
      const off = workerFor(m);
      if (off) {
        try {
          return await off.embed(texts);
        } catch {
          // A failed worker is not retried: later batches run here, sliced.
          worker = null;
        }
      }
      return embedHere(m, texts);
    },
    async close() {
      const running = worker;
      if (running) worker = undefined;
      await running?.close();
    },
  };
}
