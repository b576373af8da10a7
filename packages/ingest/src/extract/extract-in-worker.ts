import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Scheduler } from '@memory/core';
import { ExtractError, type ExtractResult } from './extract-types.js';
import type { ExtractRequest, ExtractResponse } from './extract-worker.js';

/**
 * The worker's entry: the built `extract/extract-worker.js` beside the bundle, or, from the
 * TypeScript sources (tests, benchmarks), `extract-worker.ts` loaded through tsx's register hook.
 */
export function workerEntry(): { readonly file: URL } | { readonly code: string } {
  const built = new URL('./extract/extract-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(built))) return { file: built };
  const sibling = new URL('./extract-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return { file: sibling };
  const source = new URL('./extract-worker.ts', import.meta.url);
  // require.resolve gives the CommonJS build, which cannot register the ESM loader: take its ESM twin.
  const tsx = pathToFileURL(
    createRequire(import.meta.url)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  // An eval worker is a CommonJS script: it registers tsx, then imports the TypeScript entry.
  return {
    code: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source.href)}); });`,
  };
}

/**
 * Runs one extraction in a fresh worker thread with a bounded heap and a wall-clock limit: the host's
 * event loop only waits, and a document that explodes (a zip bomb lying about its sizes, a PDF that
 * loops) costs a terminated worker, never the host. The bytes are copied to the worker.
 */
export function extractInWorker(
  request: ExtractRequest,
  context: { readonly scheduler: Scheduler; readonly signal?: AbortSignal | undefined },
): Promise<ExtractResult> {
  const { scheduler, signal } = context;
  const entry = workerEntry();
  const options = { resourceLimits: { maxOldGenerationSizeMb: request.limits.workerHeapMb } };
  const worker = 'file' in entry ? new Worker(entry.file, options) : new Worker(entry.code, { ...options, eval: true });
  return new Promise<ExtractResult>((resolve, reject) => {
    let settled = false;
    const finish = (error: Error | undefined, result?: ExtractResult): void => {
      if (settled) return;
      settled = true;
      timer.cancel();
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate();
      if (error) reject(error);
      else resolve(result as ExtractResult);
    };
    const timer = scheduler.schedule(
      () => finish(new ExtractError('timeout', `extraction took longer than ${request.limits.timeoutMs} ms; stopped`)),
      request.limits.timeoutMs,
    );
    const onAbort = (): void =>
      finish(signal?.reason instanceof Error ? signal.reason : new ExtractError('timeout', 'extraction aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.on('message', (response: ExtractResponse) => {
      if (response.ok) return finish(undefined, response.result);
      if (response.reason === 'crash') return finish(new Error(`extraction failed: ${response.message}`));
      finish(new ExtractError(response.reason, response.message));
    });
    worker.on('error', (error) => {
      const heap = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
      finish(
        heap
          ? new ExtractError('too-large', `extraction ran out of its ${request.limits.workerHeapMb} MB heap; refused`)
          : error,
      );
    });
    worker.on('exit', (code) => finish(new Error(`extraction worker exited (${code}) without an answer`)));
    worker.postMessage(request);
  });
}
