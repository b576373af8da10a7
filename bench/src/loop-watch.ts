// The event-loop watch the benches share (bench:event-loop, bench:workspace): the longest stall, the
// part of it spent waiting for a core, the longest synchronous slice and the longest GC pause.
import { openSync, readSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

function threadCpuReader(): (() => { cpu: number; wait: number }) | undefined {
  let fd: number;
  try {
    fd = openSync(`/proc/self/task/${process.pid}/schedstat`, 'r');
  } catch {
    return undefined;
  }
  const buffer = Buffer.alloc(64);
  return () => {
    const [cpu, wait] = buffer.toString('latin1', 0, readSync(fd, buffer, 0, 64, 0)).split(' ');
    return { cpu: Number(cpu) / 1e6, wait: Number(wait) / 1e6 };
  };
}
const threadCpu = threadCpuReader();

export interface LoopWatch {
  /** Stops watching; the longest stall in ms. */
  stop(): number;
  /** The longest garbage-collection pause in ms. */
  gc(): number;
  /** The most CPU this thread used between two turns of the loop (ms): the longest synchronous slice. */
  slice(): number | undefined;
  /** Of the longest stall, the ms this thread spent waiting for a core. */
  stallWait(): number | undefined;
  /** How many gaps were longer than `overMs`. */
  over(): number;
}

/**
 * Watches the event loop from a timer that asks to run every millisecond: the longest gap between
 * two runs, less the 1 ms it asked for, is the longest time the loop was held. The thread's CPU
 * time over the same gaps gives the longest synchronous slice, which a loaded machine inflates far
 * less (a stall there is mostly waiting for a core).
 */
/** A gap over the watch's threshold: when (process.hrtime µs, as a CPU profile's timestamps), how long, how much CPU. */
export interface LoopGap {
  readonly startUs: number;
  readonly endUs: number;
  readonly ms: number;
  readonly cpuMs: number | undefined;
  /** Garbage-collection pauses inside the gap (ms), filled in as the GC entries arrive. */
  gcMs: number;
}

export function watchLoop(overMs = Number.POSITIVE_INFINITY, onOver?: (gap: LoopGap) => void): LoopWatch {
  let last = performance.now();
  let lastCpu = threadCpu?.() ?? { cpu: 0, wait: 0 };
  let longest = 0;
  let longestWait = 0;
  let longestSlice = 0;
  let longestGc = 0;
  let over = 0;
  // Gaps over the threshold, with their performance.now() bounds, waiting for the GC entries
  // (delivered after the gap) that fall inside them.
  const recent: Array<{ gap: LoopGap; from: number; to: number }> = [];
  const timer = setInterval(() => {
    const now = performance.now();
    const cpu = threadCpu?.() ?? { cpu: 0, wait: 0 };
    const gap = now - last - 1;
    if (gap > overMs) {
      over++;
      // performance.now() and the profiler's clock differ by a constant: place the gap by hrtime.
      const endUs = Number(process.hrtime.bigint() / 1000n);
      const entry: LoopGap = {
        startUs: Math.round(endUs - (now - last) * 1000),
        endUs,
        ms: gap,
        cpuMs: threadCpu ? cpu.cpu - lastCpu.cpu : undefined,
        gcMs: 0,
      };
      recent.push({ gap: entry, from: last, to: now });
      if (recent.length > 64) recent.shift();
      onOver?.(entry);
    }
    if (gap > longest) {
      longest = gap;
      longestWait = cpu.wait - lastCpu.wait;
    }
    longestSlice = Math.max(longestSlice, cpu.cpu - lastCpu.cpu);
    last = now;
    lastCpu = cpu;
  }, 1);
  // Garbage-collection pauses of this thread, reported apart: they stall the loop too, but they
  // follow the heap's size, not how the work is sliced.
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      longestGc = Math.max(longestGc, entry.duration);
      for (const r of recent) {
        const overlap = Math.min(r.to, entry.startTime + entry.duration) - Math.max(r.from, entry.startTime);
        if (overlap > 0) r.gap.gcMs += overlap;
      }
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop() {
      clearInterval(timer);
      observer.disconnect();
      if (threadCpu) longestSlice = Math.max(longestSlice, threadCpu().cpu - lastCpu.cpu);
      return Math.max(longest, performance.now() - last - 1);
    },
    gc: () => longestGc,
    slice: () => (threadCpu ? longestSlice : undefined),
    stallWait: () => (threadCpu ? longestWait : undefined),
    over: () => over,
  };
}
