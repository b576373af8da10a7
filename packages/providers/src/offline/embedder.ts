import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { createTimeSlicer, type EmbeddingProvider, MemoryError, STOP_WORDS, yieldToEventLoop } from '@memory/core';
import { type EmbedModel, embedText, indexWords } from './embed-text.js';
import { type EmbedWorkerClient, startEmbedWorker } from './embed-worker-client.js';
import { checkWordCount, decodeWordVectorFile, type WordVectorFile, type WordVectorHeader } from './format.js';
import { indexWordsSliced } from './index-words.js';

/** Where the package keeps its built vectors file, seen from `src/offline/` and from the bundled `dist/`. */
export const DEFAULT_VECTORS_PATH = fileURLToPath(new URL('../../assets/glove-100d-sif.bin', import.meta.url));
const DIST_VECTORS_PATH = fileURLToPath(new URL('../assets/glove-100d-sif.bin', import.meta.url));
/** The package export of the vectors file: `@memory/providers/offline-vectors`. */
const VECTORS_EXPORT = '@memory/providers/offline-vectors';

/**
 * Where to look for the vectors file when no `vectorsPath` is given: beside this module (sources
 * and `dist/`), then through the package export, which still finds an installed package when this
 * code was bundled into another file (where `import.meta.url` is the bundle's).
 */
function defaultVectorsPaths(): string[] {
  const paths = [DEFAULT_VECTORS_PATH, DIST_VECTORS_PATH];
  try {
    paths.push(createRequire(import.meta.url).resolve(VECTORS_EXPORT));
  } catch {
    // Not resolvable from here (bundled without node_modules): the caller reports every path tried.
  }
  return paths;
}

/**
 * The cosine at or above which conflict detection considers two texts (calibrated on the dev split
 * of bench/src/conflict-pairs.ts with `npm run bench:conflict`: the highest-recall cut with dev
 * precision ≥ 0.98). Low, because SIF cosines carry little of the decision: the lexical rule makes it.
 */
const OFFLINE_CONFLICT_THRESHOLD = 0.37;

export interface OfflineEmbedderOptions {
  /**
   * The vectors file. Set it when this package is bundled into your app (esbuild, webpack, ...):
   * the default is found relative to this module's own file, which a bundle moves. The file is
   * exported as `@memory/providers/offline-vectors`:
   * `createRequire(import.meta.url).resolve('@memory/providers/offline-vectors')`, or copy it next
   * to your bundle and pass that path.
   * @default the one shipped in this package's `assets/`
   */
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
  readonly header: WordVectorHeader;
  /** The vocabulary as stored ("\n"-joined): what the worker is sent, not 100,000 strings. */
  readonly wordsText: string;
}

const MODEL_NAME = 'glove-6b-100d-sif-abtt1';
const DIMENSIONS = 100;

/** Reads the first existing file of `paths`; the error names every path tried and what to do. */
function readVectorsFile(paths: readonly string[]): Buffer {
  const path = paths.find((p) => existsSync(p));
  try {
    if (path === undefined) throw new Error('no such file');
    return readFileSync(path);
  } catch (cause) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `offline embedder vectors file not found (tried ${(path === undefined ? paths : [path]).join(', ')}). ` +
        `In a bundled app, pass vectorsPath: the file is exported as '${VECTORS_EXPORT}' ` +
        `(createRequire(import.meta.url).resolve('${VECTORS_EXPORT}')), or copy it next to the bundle. ` +
        'In this repository, build it with "pnpm --filter @memory/providers build:vectors"',
      { cause, details: { reason: 'vectors-missing', tried: [...paths] } },
    );
  }
}

/** Refuses a vectors file built for another model: its vectors would not match stored ones. */
function checkModelFile(file: WordVectorFile): void {
  if (file.header.dimensions !== DIMENSIONS || file.header.model !== MODEL_NAME) {
    throw new MemoryError(
      'INVALID_CONFIG',
      `offline embedder vectors file holds ${file.header.model} (${file.header.dimensions} dimensions), expected ${MODEL_NAME}; rebuild it with --force`,
    );
  }
}

function modelOf(file: WordVectorFile, index: Map<string, number>): Model {
  return {
    header: file.header,
    wordsText: file.wordsText,
    dimensions: file.header.dimensions,
    oovNorm: file.header.oovNorm,
    components: file.components,
    scales: file.scales,
    vectors: file.vectors,
    index,
    stopWords: STOP_WORDS,
  };
}

/** Loads the model in one go (`load()`: a host that wants it ready before the first call). */
function loadModel(paths: readonly string[]): Model {
  const file = decodeWordVectorFile(readVectorsFile(paths));
  checkModelFile(file);
  const words = file.wordsText.split('\n');
  checkWordCount(file.header, words.length);
  return modelOf(file, indexWords(words));
}

/**
 * Loads the model with the event loop let run between steps: reading and decoding the file take a
 * few milliseconds each, indexing 100,000 words tens of milliseconds, so that is done in slices.
 * Same model as {@link loadModel}.
 */
async function loadModelSliced(paths: readonly string[]): Promise<Model> {
  const buffer = readVectorsFile(paths);
  await yieldToEventLoop();
  const file = decodeWordVectorFile(buffer);
  checkModelFile(file);
  await yieldToEventLoop();
  const { index, rows } = await indexWordsSliced(file.wordsText);
  checkWordCount(file.header, rows);
  return modelOf(file, index);
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
): EmbeddingProvider & { load(): void; check(): Promise<void>; close(): Promise<void> } {
  let model: Model | undefined;
  let loading: Promise<Model> | undefined;
  const path = options.vectorsPath;
  const workerMinChars = options.workerMinChars ?? 16_384;
  const resolvePaths = (): readonly string[] => (path === undefined ? defaultVectorsPaths() : [path]);
  const load = (): Model => {
    model ??= loadModel(resolvePaths());
    return model;
  };
  // `embed` loads in slices; concurrent first calls share one load, and a failed load is retried.
  const loadSliced = (): Promise<Model> => {
    if (model) return Promise.resolve(model);
    loading ??= loadModelSliced(resolvePaths()).then(
      (loaded) => {
        model ??= loaded;
        return model;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  };
  const dimensions = DIMENSIONS;
  const modelName = MODEL_NAME;
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
        words: m.wordsText,
        stopWords: [...m.stopWords],
      }) ?? null;
    return worker;
  };
  return {
    model: modelName,
    dimensions,
    conflictThreshold: OFFLINE_CONFLICT_THRESHOLD,
    load: () => void load(),
    async check() {
      await loadSliced();
    },
    async embed(texts) {
      const m = await loadSliced();
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
