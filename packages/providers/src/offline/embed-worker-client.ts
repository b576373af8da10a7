import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { EmbedRequest, EmbedResponse, EmbedWorkerData } from './embed-worker.js';

/** The main thread's side of the embedding worker. */
export interface EmbedWorkerClient {
  /** Embeds a batch in the worker; rejects if the worker fails (the caller then embeds in-process). */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
  /** Stops the worker; pending batches reject. */
  close(): Promise<void>;
}

/**
 * How to start the worker: the built `offline/embed-worker.js` next to the bundle, or, when running
 * from the TypeScript sources (tests, benchmarks), `embed-worker.ts` loaded through tsx's register
 * hook. Undefined when neither is possible: the embedder then stays in-process.
 */
function workerEntry(): { readonly file: URL } | { readonly code: string } | undefined {
  const built = new URL('./offline/embed-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return { file: built };
  const source = new URL('./embed-worker.ts', import.meta.url);
  if (!existsSync(fileURLToPath(source))) return undefined;
  let tsx: string;
  try {
    // The ESM build of tsx's API, resolved as an import. `require.resolve` gave its CommonJS build,
    // whose register() cannot find its own ESM half when imported: the worker failed on every start
    // and large batches silently ran in-process.
    tsx = import.meta.resolve('tsx/esm/api');
  } catch {
    return undefined;
  }
  // An eval worker is a CommonJS script: it registers tsx, then imports the TypeScript entry.
  return {
    code: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}); });`,
  };
}

/**
 * Starts the embedding worker with the model in shared memory, or returns undefined when it cannot
 * be started here. The worker never keeps the host process alive: it is referenced only while a
 * batch is in flight.
 */
export function startEmbedWorker(data: EmbedWorkerData): EmbedWorkerClient | undefined {
  const entry = workerEntry();
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
