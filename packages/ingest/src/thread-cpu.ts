import { openSync, readSync } from 'node:fs';

/** A reading of this thread's CPU time in milliseconds, or undefined where it cannot be read. */
export type ThreadCpuClock = () => number | undefined;

// The file stays open for the thread's life: opening it costs ~80 µs, reading it ~5 µs. Through
// `thread-self` it names the thread that opened it (a worker thread loads its own copy of this module).
let fd: number | undefined;
let unavailable = false;
const buffer = Buffer.alloc(64);

/**
 * This thread's CPU time (Linux: the scheduler's run time in `/proc/thread-self/schedstat`, in
 * nanoseconds). Node 20 has no `process.threadCpuUsage`, and `process.cpuUsage` counts every
 * thread: the background WAL checkpoint's worker, the host's own workers. Undefined elsewhere.
 */
export const threadCpuMs: ThreadCpuClock = () => {
  if (unavailable) return undefined;
  try {
    fd ??= openSync('/proc/thread-self/schedstat', 'r');
    const text = buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
    const ns = Number(text.slice(0, text.indexOf(' ')));
    if (Number.isFinite(ns) && ns > 0) return ns / 1e6;
  } catch {
    // Not Linux, or /proc is not mounted.
  }
  unavailable = true;
  return undefined;
};
