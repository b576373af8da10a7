import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@memory/core';

/**
 * Runs WAL checkpoints on a worker thread with its own connection. A checkpoint copies WAL pages
 * into the database file and fsyncs it; done by the writing connection (SQLite's default
 * auto-checkpoint) that fsync lands inside a commit and held the host's event loop for 60–200 ms
 * in the remember benchmark. Here the writer only posts a message after it commits.
 */
export interface Checkpointer {
  /**
   * Asks for a passive checkpoint; coalesced while one is already running. Resolves with the WAL
   * frame counts the checkpoint saw, or undefined if the worker is gone. Never rejects.
   */
  request(mode?: CheckpointMode): Promise<CheckpointResult | undefined>;
  /**
   * Stops the worker: a request in flight resolves undefined at once, and the returned promise
   * resolves once the worker thread has exited (its connection closed, so no thread of this process
   * holds the database file). A worker that has not exited after `closeDeadlineMs` is terminated,
   * with a warning; the promise still resolves only at its exit, once the native call it was in
   * (a long final checkpoint, a slow fsync) has returned. Never rejects; every call returns the
   * same promise.
   */
  close(): Promise<void>;
}

/** How long `close()` waits for the worker thread to exit before it terminates it. */
export const CHECKPOINTER_CLOSE_DEADLINE_MS = 5_000;

// Plain CommonJS: the worker is evaluated from this string, so it works the same from TypeScript
// sources (tests) and from the bundled dist.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
// Set by the host before it posts 'close': passive checkpoints queued behind the one running are
// skipped (a truncate still runs: it is what scrubs erased text out of the WAL), and a worker that
// starts after the store closed never opens the file.
const closing = new Int32Array(workerData.closing);
const Database = require(workerData.driver);
const db = Atomics.load(closing, 0) === 1 ? undefined : new Database(workerData.path, { fileMustExist: true });
db?.pragma('busy_timeout = 1000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    // The last connection to close checkpoints the WAL into the file and deletes it; nothing else
    // (no timer, no handle) is left, so the thread exits once the port is closed.
    db?.close();
    parentPort.close();
    return;
  }
  if (!db || (message !== 'truncate' && Atomics.load(closing, 0) === 1)) return;
  try {
    const [result] = db.pragma(message === 'truncate' ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true, result });
  } catch (error) {
    parentPort.postMessage({ ok: false, error: String(error && error.message || error) });
  }
});
`;

/**
 * `passive` copies what it can without waiting; `truncate` also waits for readers and empties the
 * WAL file, so pages that held deleted content are gone from it too (after a purge or an erase).
 */
export type CheckpointMode = 'passive' | 'truncate';

/** `PRAGMA wal_checkpoint` output: frames in the WAL, and frames copied into the database. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

interface CheckpointReply {
  readonly ok: boolean;
  readonly result?: CheckpointResult;
  readonly error?: string;
}

/**
 * Starts the checkpoint worker for a database file; returns undefined (and logs) if it cannot start.
 * `onStopped` runs if the worker dies later (the writer then has to checkpoint on its own).
 */
export function startCheckpointer(
  path: string,
  logger: Logger,
  onStopped?: () => void,
  closeDeadlineMs: number = CHECKPOINTER_CLOSE_DEADLINE_MS,
): Checkpointer | undefined {
  let worker: Worker;
  const closingFlag = new SharedArrayBuffer(4);
  try {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, driver, closing: closingFlag } });
  } catch (error) {
    logger.warn('background checkpoints unavailable; SQLite checkpoints on commit instead', { error: String(error) });
    return undefined;
  }
  // Whether requests are refused (close() ran, or the worker died), and close()'s promise.
  let closed = false;
  let closing: Promise<void> | undefined;
  let exited = false;
  const exit = new Promise<void>((resolve) => {
    worker.once('exit', () => {
      exited = true;
      resolve();
    });
  });
  let pending:
    | {
        promise: Promise<CheckpointResult | undefined>;
        resolve: (r: CheckpointResult | undefined) => void;
        mode: CheckpointMode;
      }
    | undefined;
  const settle = (result: CheckpointResult | undefined): void => {
    const current = pending;
    pending = undefined;
    // Idle again: an engine the host forgot to close must not keep its process alive. (While
    // closing it stays referenced, so a host awaiting close() is not cut off before the exit.)
    if (!closing) worker.unref();
    current?.resolve(result);
  };
  worker.on('message', (reply: CheckpointReply) => {
    if (closing) return;
    if (!reply.ok) logger.warn('background checkpoint failed', { error: reply.error ?? 'unknown' });
    settle(reply.result);
  });
  worker.on('error', (error) => {
    closed = true;
    logger.warn('checkpoint worker stopped', { error: String(error) });
    settle(undefined);
    onStopped?.();
  });
  // After the listeners: adding a 'message' listener refs the worker's port again, and a
  // referenced port keeps a host that forgot close() alive forever.
  worker.unref();
  const api: Checkpointer = {
    request(mode: CheckpointMode = 'passive') {
      if (closed) return Promise.resolve(undefined);
      if (pending?.mode === mode || (pending && mode === 'passive')) return pending.promise;
      // A truncate asked for while a passive checkpoint runs waits for it, then runs on its own.
      if (pending) return pending.promise.then(() => api.request(mode));
      let resolve: (r: CheckpointResult | undefined) => void = () => undefined;
      const promise = new Promise<CheckpointResult | undefined>((r) => {
        resolve = r;
      });
      pending = { promise, resolve, mode };
      // Referenced while a caller awaits the reply: an unreferenced worker would let the process
      // exit with that await unsettled (a script awaiting a document ingest would stop mid-way).
      worker.ref();
      worker.postMessage(mode === 'truncate' ? 'truncate' : 'checkpoint');
      return promise;
    },
    close() {
      closing ??= stop();
      return closing;
    },
  };
  const stop = (): Promise<void> => {
    closed = true;
    settle(undefined);
    if (exited) return Promise.resolve();
    Atomics.store(new Int32Array(closingFlag), 0, 1);
    worker.postMessage('close');
    // Referenced until it exits: a host whose last act is `await close()` must see it resolve
    // (an unreferenced worker would let the process end with that await unsettled).
    worker.ref();
    return new Promise<void>((resolve) => {
      // Termination stops the worker's JavaScript, not a native call in progress (a long final
      // checkpoint, a hung fsync): the thread holds the file until that call returns, so the
      // promise still waits for its exit.
      const deadline = setTimeout(() => {
        logger.warn('checkpoint worker did not exit after close; terminating it', { waitedMs: closeDeadlineMs });
        void worker.terminate().catch(() => undefined);
      }, closeDeadlineMs);
      deadline.unref();
      void exit.then(() => {
        clearTimeout(deadline);
        resolve();
      });
    });
  };
  return api;
}
