import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from 'node:fs';

// What a test can see of a database file from outside: its WAL's length and restarts, and which
// files and threads of this process still hold it (Linux: /proc/self).

/** A WAL frame: its 24-byte header and one 4 KiB page; the file starts with a 32-byte header. */
const FRAME_BYTES = 4096 + 24;

/** The most frames the WAL ever held: SQLite never truncates it here, so its size is its high-water mark. */
export function walHighWater(path: string): number {
  return Math.round((statSync(`${path}-wal`).size - 32) / FRAME_BYTES);
}

/** The WAL header's checkpoint sequence number: SQLite adds one each time the WAL restarts. */
export function walRestarts(path: string): number {
  const fd = openSync(`${path}-wal`, 'r');
  const header = Buffer.alloc(16);
  readSync(fd, header, 0, 16, 0);
  closeSync(fd);
  return header.readUInt32BE(12);
}

/** The files under `dir` this process holds open, one entry per descriptor (Linux: /proc/self/fd). */
export function openFilesUnder(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) held.push(target.slice(dir.length + 1));
    } catch {
      // The descriptor readdirSync itself used is gone by now.
    }
  }
  return held.sort();
}

/** Threads of this process (Linux: /proc/self/status); a worker thread counts until it has exited. */
export function processThreads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

/**
 * The thread count once threads that have exited are gone from it. A worker's 'exit' event fires
 * when `pthread_join` returns, and the kernel wakes the joiner before it removes the thread from
 * the process: on a busy machine the count still includes it for a moment (seen 9 times in 3,000
 * worker exits at load 4). Waits up to `withinMs` for the count to fall to `expected`; a thread
 * that is still running never leaves it, so the result then stays above.
 */
export async function threadsSettledTo(expected: number, withinMs = 2000): Promise<number> {
  const deadline = Date.now() + withinMs;
  let threads = processThreads();
  while (threads > expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    threads = processThreads();
  }
  return threads;
}
