import { parentPort, workerData } from 'node:worker_threads';
import { type EmbedModel, embedText, indexWords } from './embed-text.js';

// The offline embedder's worker thread: the per-text work of large batches runs here, off the
// host's event loop. The word vectors arrive once, in shared memory; each request is a batch of
// texts, each answer one Float32Array of `texts.length × dimensions` (transferred, not copied).

/** The model as the main thread sends it (the vectors are a view of a SharedArrayBuffer). */
export interface EmbedWorkerData {
  readonly dimensions: number;
  readonly oovNorm: number;
  readonly components: Float32Array;
  readonly scales: Float32Array;
  readonly vectors: Int8Array;
  /** The vocabulary, joined by "\n" (one string clones faster than 100k). */
  readonly words: string;
  readonly stopWords: readonly string[];
}

export interface EmbedRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

export type EmbedResponse =
  | { readonly id: number; readonly vectors: Float32Array }
  | { readonly id: number; readonly error: string };

const data = workerData as EmbedWorkerData;
const model: EmbedModel = {
  dimensions: data.dimensions,
  oovNorm: data.oovNorm,
  components: data.components,
  scales: data.scales,
  vectors: data.vectors,
  index: indexWords(data.words.split('\n')),
  stopWords: new Set(data.stopWords),
};

parentPort?.on('message', (request: EmbedRequest) => {
  try {
    const out = new Float32Array(request.texts.length * model.dimensions);
    for (const [i, text] of request.texts.entries()) out.set(embedText(model, text), i * model.dimensions);
    parentPort?.postMessage({ id: request.id, vectors: out } satisfies EmbedResponse, [out.buffer]);
  } catch (error) {
    parentPort?.postMessage({
      id: request.id,
      error: error instanceof Error ? error.message : String(error),
    } satisfies EmbedResponse);
  }
});
