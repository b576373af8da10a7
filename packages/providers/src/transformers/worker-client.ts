import { Worker } from 'node:worker_threads';
import { MemoryError } from '@memory/core';
import { workerEntry } from '../worker-entry.js';
import type { ModelInfo } from './model.js';
import { type EmbedRequest, fromWire, type WorkerData, type WorkerMessage } from './wire.js';

/** A loaded model, wherever it runs: `embed` returns `texts.length × dimensions` floats, flat. */
export interface ModelBackend {
  readonly info: ModelInfo;
  embed(texts: readonly string[]): Promise<Float32Array>;
  close(): Promise<void>;
}

/**
 * Starts the worker and waits until it has loaded the model. Resolves undefined when no worker can
 * start here (the caller loads in-process), rejects with the loader's MemoryError when the model
 * or a peer is missing. The worker never keeps the host alive: it is referenced only while a load
 * or a batch is in flight.
 */
export function startModelWorker(data: WorkerData): Promise<ModelBackend | undefined> {
  // From the bundle (dist/index.js) the built worker is dist/transformers/embed-worker.js.
  const entry = workerEntry(
    new URL('./transformers/embed-worker.js', import.meta.url),
    new URL('./embed-worker.ts', import.meta.url),
  );
  if (!entry) return Promise.resolve(undefined);
  let worker: Worker;
  try {
    worker =
      'file' in entry
        ? new Worker(entry.file, { workerData: data })
        : new Worker(entry.code, { eval: true, workerData: data });
  } catch {
    return Promise.resolve(undefined);
  }
  const pending = new Map<number, { resolve: (v: Float32Array) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let failure: MemoryError | undefined;
  return new Promise((resolveStart, rejectStart) => {
    const failAll = (error: MemoryError): void => {
      failure ??= error;
      rejectStart(error);
      for (const p of pending.values()) p.reject(error);
      pending.clear();
      worker.unref();
    };
    worker.on('message', (message: WorkerMessage) => {
      if (message.type === 'ready') {
        worker.unref();
        resolveStart(backend(message.info));
      } else if (message.type === 'failed') {
        failAll(fromWire(message.error));
        void worker.terminate();
      } else {
        const request = pending.get(message.id);
        if (!request) return;
        pending.delete(message.id);
        if (pending.size === 0) worker.unref();
        if (message.type === 'error') request.reject(fromWire(message.error));
        else request.resolve(message.vectors);
      }
    });
    const crashed = (reason: string): void =>
      failAll(
        new MemoryError('PROVIDER_ERROR', `transformers embedder: worker ${reason}`, {
          details: { reason: 'worker-failed' },
        }),
      );
    worker.on('error', (error) => crashed(`failed: ${error.message}`));
    worker.on('exit', (code) => crashed(`exited (${code})`));
    const backend = (info: ModelInfo): ModelBackend => ({
      info,
      embed(texts) {
        if (failure) return Promise.reject(failure);
        return new Promise((resolve, reject) => {
          const id = nextId++;
          pending.set(id, { resolve, reject });
          worker.ref();
          worker.postMessage({ id, texts } satisfies EmbedRequest);
        });
      },
      async close() {
        failAll(new MemoryError('PROVIDER_ERROR', 'transformers embedder closed', { details: { reason: 'closed' } }));
        await worker.terminate();
      },
    });
  });
}
