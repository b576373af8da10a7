import { performance } from 'node:perf_hooks';
import { type ThreadCpuClock, threadCpuMs } from './thread-cpu.js';

/**
 * What one `rememberMany` write transaction (its body and its COMMIT) aims at, in milliseconds.
 * A COMMIT writes every page the batch dirtied, and in a large store a batch dirties more distinct
 * pages per memory (the text index's postings, the dedup index, the vectors land on pages far
 * apart): 100 memories committed in ~10 ms into a small file and took up to 77 ms at a million
 * memories. Half the 50 ms event-loop budget leaves room for a slow turn.
 */
export const BATCH_TARGET_MS = 25;

/** Sizes `rememberMany`'s transactions by how long the last ones took. */
export interface BatchPacer {
  /** Memories the next transaction may hold: from 1 up to the configured batch size. */
  readonly size: number;
  /** Starts timing a write transaction. */
  start(): void;
  /** Ends timing the transaction just started, which wrote `items` memories, and sets the next size. */
  stop(items: number): void;
}

/**
 * A pacer starting at `max` memories per transaction. After a transaction that took longer than
 * `targetMs` the next one holds proportionally fewer memories; after a faster one it grows back, at
 * most half again per transaction (so one quick commit cannot make the next one long), never past
 * `max`. A transaction's time is the CPU time of the thread that ran it (`cpu`): what it held the
 * event loop for, less any wait for a core on a loaded machine, and without the other threads' CPU
 * (the background WAL checkpoint ran during a third of a 200k load's transactions and tripled
 * their process CPU, which shrank batches that were not long). Where the thread's time cannot be
 * read, the lesser of wall time and the process's CPU time.
 */
export function createBatchPacer(
  max: number,
  targetMs = BATCH_TARGET_MS,
  cpu: ThreadCpuClock = threadCpuMs,
): BatchPacer {
  let size = max;
  let wall = 0;
  let processCpu = process.cpuUsage();
  let threadCpu: number | undefined;
  return {
    get size() {
      return size;
    },
    start() {
      wall = performance.now();
      processCpu = process.cpuUsage();
      threadCpu = cpu();
    },
    stop(items) {
      const end = threadCpu === undefined ? undefined : cpu();
      let ms: number;
      if (threadCpu !== undefined && end !== undefined) ms = end - threadCpu;
      else {
        const used = process.cpuUsage(processCpu);
        ms = Math.min(performance.now() - wall, (used.user + used.system) / 1000);
      }
      size = nextBatchSize({ size, max, targetMs }, items, ms);
    },
  };
}

/**
 * The next transaction's size after one of `items` memories took `ms`: as many as fit in
 * `targetMs` at that pace (cost taken as proportional to the batch; a fixed part only makes the
 * next step smaller), at most half again the current size, within 1 and `max`.
 */
export function nextBatchSize(
  pace: { size: number; max: number; targetMs: number },
  items: number,
  ms: number,
): number {
  if (items <= 0) return pace.size;
  const fits = ms > 0 ? Math.floor((items * pace.targetMs) / ms) : pace.max;
  return Math.max(1, Math.min(pace.max, fits, Math.ceil(pace.size * 1.5)));
}
