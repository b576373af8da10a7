import { Worker } from 'node:worker_threads';
import { workerEntry } from '../worker-entry.js';
import type { EmbedRequest, EmbedResponse, EmbedWorkerData } from './embed-worker.js';

/** The main thread's side of the embedding worker. */
export interface EmbedWorkerClient {
  /** Embeds a batch in the worker; rejects if the worker fails (the caller then embeds in-process). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Stops the worker; pending batches reject. */
  close(): Promise<void>;
}

/**
 * Starts the embedding worker with the model in shared memory, or returns undefined when it cannot
 * be started here. The worker never keeps the host process alive: it is referenced only while a
 * batch is in flight.
 */
export function startEmbedWorker(data: EmbedWorkerData): EmbedWorkerClient | undefined {
  // From the bundle (dist/index.js) the built worker is dist/offline/embed-worker.js.
  const entry = workerEntry(
    new URL('./offline/embed-worker.js', import.meta.url),
    new URL('./embed-worker.ts', import.meta.url),
  );
  if (!entry) return undefined;
  let worker: Worker;
  try {
    worker =
      'file' in entry
        ? new Worker(entry.file, { workerData: data })
        : new Worker(entry.code, { eval: true, workerData: data });
  } catch {
    return undefined;
  }
  const pending = new Map<number, { resolve: (v: Float32Array[]) => void; reject: (e: Error) => void; n: number }>();
  let nextId = 1;
  let failure: Error | undefined;
  const failAll = (error: Error): void => {
    failure ??= error;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    worker.unref();
  };
  worker.on('message', (response: EmbedResponse) => {
    const request = pending.get(response.id);
    if (!request) return;
    pending.delete(response.id);
    if (pending.size === 0) worker.unref();
    if ('error' in response) return request.reject(new Error(response.error));
    const { vectors } = response;
    const out: Float32Array[] = [];
    for (let i = 0; i < request.n; i++) out.push(vectors.subarray(i * data.dimensions, (i + 1) * data.dimensions));
    request.resolve(out);
  });
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`embedding worker exited (${code})`)));
  // After the listeners: adding a 'message' listener refs the worker's port again.
  worker.unref();
  return {
    embed(texts) {
      if (failure) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject, n: texts.length });
        worker.ref();
        worker.postMessage({ id, texts } satisfies EmbedRequest);
      });
    },
    async close() {
      failAll(new Error('embedding worker closed'));
      await worker.terminate();
    },
  };
}
