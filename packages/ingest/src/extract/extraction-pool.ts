import { Worker } from 'node:worker_threads';
import type { ScheduledHandle, Scheduler } from '@memory/core';
import { workerEntry } from './extract-in-worker.js';
import { ExtractError, type ExtractResult } from './extract-types.js';
import type { ExtractRequest, ExtractResponse } from './extract-worker.js';

/** Idle extraction workers kept for the next document: at most the document admission's width. */
const MAX_IDLE = 2;
/** An idle worker is ended after this long without work. */
const IDLE_MS = 10_000;

interface PooledWorker {
  readonly worker: Worker;
  readonly heapMb: number;
  idle?: ScheduledHandle;
}

/**
 * Extraction workers reused from one document to the next. Starting a worker costs more than
 * extracting a small PDF (it loads pdf.js or mammoth again: ~0.3 s, seconds on a loaded machine),
 * which bounded a folder sync to a few files per second. Limits are unchanged: each worker has the
 * bounded heap, each extraction the wall-clock limit; a worker that timed out, was aborted, crashed
 * or ran out of heap is terminated, never reused. A worker that answered (success or a typed
 * refusal) goes back to the pool, unreferenced, and ends after 10 s idle or at `close()`.
 */
export function createExtractionPool(scheduler: Scheduler) {
  const idle: PooledWorker[] = [];
  let closed = false;
  let spawned = 0;

  const spawn = (heapMb: number): PooledWorker => {
    spawned++;
    const entry = workerEntry();
    const options = { resourceLimits: { maxOldGenerationSizeMb: heapMb } };
    const worker =
      'file' in entry ? new Worker(entry.file, options) : new Worker(entry.code, { ...options, eval: true });
    return { worker, heapMb };
  };

  const release = (pooled: PooledWorker): void => {
    if (closed || idle.length >= MAX_IDLE) {
      void pooled.worker.terminate();
      return;
    }
    pooled.worker.unref();
    pooled.idle = scheduler.schedule(() => {
      const at = idle.indexOf(pooled);
      if (at >= 0) idle.splice(at, 1);
      void pooled.worker.terminate();
    }, IDLE_MS);
    idle.push(pooled);
  };

  const take = (heapMb: number): PooledWorker => {
    const at = idle.findIndex((p) => p.heapMb === heapMb);
    if (at < 0) return spawn(heapMb);
    const [pooled] = idle.splice(at, 1) as [PooledWorker];
    pooled.idle?.cancel();
    pooled.worker.ref();
    return pooled;
  };

  return {
    /** One extraction in a pooled worker, under the request's heap and time limits. */
    run(request: ExtractRequest, context: { readonly signal?: AbortSignal | undefined } = {}): Promise<ExtractResult> {
      const { signal } = context;
      const pooled = take(request.limits.workerHeapMb);
      const { worker } = pooled;
      return new Promise<ExtractResult>((resolve, reject) => {
        let settled = false;
        const finish = (error: Error | undefined, result?: ExtractResult, reusable = false): void => {
          if (settled) return;
          settled = true;
          timer.cancel();
          signal?.removeEventListener('abort', onAbort);
          worker.off('message', onMessage);
          worker.off('error', onError);
          worker.off('exit', onExit);
          if (reusable) release(pooled);
          else void worker.terminate();
          if (error) reject(error);
          else resolve(result as ExtractResult);
        };
        const timer = scheduler.schedule(
          () =>
            finish(new ExtractError('timeout', `extraction took longer than ${request.limits.timeoutMs} ms; stopped`)),
          request.limits.timeoutMs,
        );
        const onAbort = (): void =>
          finish(signal?.reason instanceof Error ? signal.reason : new ExtractError('timeout', 'extraction aborted'));
        const onMessage = (response: ExtractResponse): void => {
          if (response.ok) finish(undefined, response.result, true);
          else if (response.reason === 'crash') finish(new Error(`extraction failed: ${response.message}`));
          else finish(new ExtractError(response.reason, response.message), undefined, true);
        };
        const onError = (error: Error): void => {
          const heap = (error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY';
          finish(
            heap
              ? new ExtractError(
                  'too-large',
                  `extraction ran out of its ${request.limits.workerHeapMb} MB heap; refused`,
                )
              : error,
          );
        };
        const onExit = (code: number): void =>
          finish(new Error(`extraction worker exited (${code}) without an answer`));
        signal?.addEventListener('abort', onAbort, { once: true });
        worker.on('message', onMessage);
        worker.on('error', onError);
        worker.on('exit', onExit);
        worker.postMessage(request);
      });
    },
    /** Workers started so far, and how many wait idle. */
    stats: (): { spawned: number; idle: number } => ({ spawned, idle: idle.length }),
    /** Ends the idle workers; extractions in flight finish, and their workers end with them. */
    close(): void {
      closed = true;
      for (const pooled of idle.splice(0)) {
        pooled.idle?.cancel();
        void pooled.worker.terminate();
      }
    },
  };
}

export type ExtractionPool = ReturnType<typeof createExtractionPool>;
