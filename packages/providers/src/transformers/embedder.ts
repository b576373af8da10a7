import { type EmbeddingProvider, MemoryError } from '@memory/core';
import { embedBatchFlat, loadTransformersModel, type ModelInfo } from './model.js';
import { type ModelSettings, type Pooling, readModelFiles } from './model-files.js';
import { fromWire, toWire } from './wire.js';
import { type ModelBackend, startModelWorker } from './worker-client.js';

export interface TransformersEmbedderOptions {
  /**
   * A local model directory, as downloaded from a model hub: `tokenizer.json` and `model.onnx`
   * (or `onnx/model.onnx`). Nothing is ever downloaded at run time.
   */
  readonly modelPath: string;
  /** The ONNX file inside `modelPath`, e.g. `'onnx/model_quantized.onnx'`. @default 'model.onnx', then 'onnx/model.onnx' */
  readonly modelFile?: string;
  /** The first part of the embedder's `model` identity. @default the directory's name */
  readonly name?: string;
  /**
   * How token vectors become one text vector. @default the model's own `sentence_embedding`
   * output if it has one, else sentence-transformers' `1_Pooling/config.json`, else `'mean'`
   */
  readonly pooling?: Pooling;
  /** Longer texts are cut (special tokens kept). @default `max_seq_length` of `sentence_bert_config.json`, else the tokenizer's limit, else 512 */
  readonly maxTokens?: number;
  /** Scale vectors to unit length. @default true */
  readonly normalize?: boolean;
  /** Texts per inference run. @default 32 */
  readonly batchSize?: number;
  /** onnxruntime's intra-op threads. @default onnxruntime's choice (one per core) */
  readonly threads?: number;
  /** Put before queries (`purpose: 'query'`), for models trained with one (e5: `'query: '`). @default '' */
  readonly queryPrefix?: string;
  /** Put before stored texts (e5: `'passage: '`). @default '' */
  readonly documentPrefix?: string;
  /** Passed on as the embedder's `conflictThreshold` (calibrate it for the model). */
  readonly conflictThreshold?: number;
  /** Run the model on a worker thread; `false` runs it on the caller's thread (blocks it while a batch runs). @default true */
  readonly worker?: boolean;
}

/** The embedder `createTransformersEmbedder` returns. */
export interface TransformersEmbedder extends EmbeddingProvider {
  /** The token limit in force. */
  readonly maxTokens: number;
  /** The pooling in force (`model`: the graph's own pooled output). */
  readonly pooling: Pooling | 'model';
  check(): Promise<void>;
  /** Stops the worker and frees the model. Later `embed` calls reject. */
  close(): Promise<void>;
}

const positive = (name: string, value: number | undefined): void => {
  if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
    throw new MemoryError('INVALID_CONFIG', `transformers embedder: ${name} must be a positive integer`, {
      details: { reason: 'option-invalid', option: name },
    });
  }
};

async function loadInProcess(settings: ModelSettings): Promise<ModelBackend> {
  const m = await loadTransformersModel(settings);
  return {
    info: m.info,
    // Errors leave here as they leave the worker: a MemoryError with a stable code.
    embed: (texts) => embedBatchFlat(m, texts).catch((error: unknown) => Promise.reject(fromWire(toWire(error)))),
    close: async () => {
      await m.session.release?.();
    },
  };
}

/**
 * A local sentence-embedding model behind the `EmbeddingProvider` interface: a Hugging Face
 * tokenizer and an ONNX encoder (all-MiniLM-L6-v2, bge-small, e5-small, ...) run on the CPU with
 * onnxruntime, mean-pooled over the attention mask (or the model's own pooling) and L2-normalized.
 *
 * Needs the optional peers `onnxruntime-node` and `@huggingface/tokenizers`, imported here and not
 * when `@memory/providers` is. Resolves once the model has loaded and embedded a test input, so a
 * missing peer, a missing file or a broken model fails here, as a `MemoryError` `INVALID_CONFIG`
 * (`details.reason`: `peer-missing`, `model-missing`, `model-invalid`). `model` is the directory's
 * name plus a hash of the weights, tokenizer and settings: other files mean another identity, and
 * the engine re-embeds. Inference runs on a worker thread that never keeps the process alive.
 *
 * @example
 * ```ts
 * const embedder = await createTransformersEmbedder({ modelPath: '/models/all-MiniLM-L6-v2' });
 * const engine = await createMemoryEngine({ database: { path: 'memory.db' }, embedder });
 * ```
 */
export async function createTransformersEmbedder(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
  if (typeof options?.modelPath !== 'string' || options.modelPath === '') {
    throw new MemoryError('INVALID_CONFIG', 'transformers embedder: modelPath (a local model directory) is required', {
      details: { reason: 'option-invalid', option: 'modelPath' },
    });
  }
  positive('maxTokens', options.maxTokens);
  positive('batchSize', options.batchSize);
  positive('threads', options.threads);
  const queryPrefix = options.queryPrefix ?? '';
  const documentPrefix = options.documentPrefix ?? '';
  const settings: ModelSettings = {
    modelPath: options.modelPath,
    modelFile: options.modelFile,
    name: options.name,
    pooling: options.pooling,
    maxTokens: options.maxTokens,
    normalize: options.normalize,
    batchSize: options.batchSize,
    threads: options.threads,
    queryPrefix,
    documentPrefix,
  };
  // The files are checked here first: a wrong path fails at once, without starting a worker.
  readModelFiles(settings);
  const start = async (): Promise<ModelBackend> => {
    if (options.worker === false) return loadInProcess(settings);
    let started: ModelBackend | undefined;
    try {
      started = await startModelWorker(settings);
    } catch (error) {
      // A worker that died on its own (not a model or peer error, which it reports) is no reason
      // to fail: load here instead, as when no worker can start at all.
      if ((error as MemoryError).details?.reason !== 'worker-failed') throw error;
    }
    return started ?? loadInProcess(settings);
  };
  const first = await start();
  const info: ModelInfo = first.info;
  let current: ModelBackend | undefined = first;
  let backend: Promise<ModelBackend> | undefined = Promise.resolve(first);
  let closed = false;
  // A crashed worker is replaced on the next call; the new one loads the same files.
  const running = async (): Promise<ModelBackend> => {
    if (closed)
      throw new MemoryError('PROVIDER_ERROR', 'transformers embedder closed', { details: { reason: 'closed' } });
    backend ??= start().then(
      async (b) => {
        // Files replaced since start: their vectors would be stored under the old identity.
        if (b.info.model !== info.model || b.info.dimensions !== info.dimensions) {
          await b.close();
          throw new MemoryError(
            'PROVIDER_ERROR',
            `transformers embedder: the files in ${options.modelPath} changed since it started (now ${b.info.model}); create a new embedder`,
            { details: { reason: 'model-changed' } },
          );
        }
        current = b;
        return b;
      },
      (error: unknown) => {
        backend = undefined;
        throw error;
      },
    );
    return backend;
  };
  return {
    model: info.model,
    dimensions: info.dimensions,
    maxTokens: info.maxTokens,
    pooling: info.pooling,
    ...(options.conflictThreshold === undefined ? {} : { conflictThreshold: options.conflictThreshold }),
    async embed(texts, embedOptions) {
      if (embedOptions?.signal?.aborted) throw new MemoryError('ABORTED', 'embedding aborted');
      if (texts.length === 0) return [];
      const prefix = embedOptions?.purpose === 'query' ? queryPrefix : documentPrefix;
      const b = await running();
      let flat: Float32Array;
      try {
        flat = await b.embed(prefix === '' ? texts : texts.map((t) => prefix + t));
      } catch (error) {
        if ((error as MemoryError).details?.reason === 'worker-failed' && current === b && !closed) {
          current = undefined;
          backend = undefined;
        }
        throw error;
      }
      const d = info.dimensions;
      return texts.map((_, i) => flat.slice(i * d, (i + 1) * d));
    },
    async check() {
      await running();
    },
    async close() {
      closed = true;
      const b = backend;
      backend = undefined;
      // A replacement that failed to start has nothing to close.
      await (await b?.catch(() => undefined))?.close();
    },
  };
}
