import { yieldToEventLoop } from '@memory/core';

/** Each point's `k` nearest points (itself first, at distance 0) and their Euclidean distances. */
export interface Neighbours {
  readonly indices: number[][];
  readonly distances: number[][];
}

// A slice of the scan runs about this long before the host's event loop gets a turn.
const SLICE_MS = 10;

/**
 * Exact k nearest neighbours by a full scan, in slices of rows with the event loop free between
 * them: n² distance computations, fine for the few thousand points of a map (UMAP's own
 * approximate search is faster for many more, but is one synchronous call).
 */
export async function exactNeighbours(vectors: readonly Float32Array[], k: number): Promise<Neighbours> {
  const n = vectors.length;
  const dims = vectors[0]?.length ?? 0;
  // One flat array: the inner loop reads consecutive memory with no per-vector lookups.
  const flat = new Float32Array(n * dims);
  vectors.forEach((v, i) => {
    flat.set(v.subarray(0, dims), i * dims);
  });
  const indices: number[][] = [];
  const distances: number[][] = [];
  let sliceStarted = performance.now();
  for (let i = 0; i < n; i++) {
    const a = i * dims;
    // The k best so far, nearest first (insertion into a short sorted list).
    const best: number[] = [];
    const bestD: number[] = [];
    for (let j = 0; j < n; j++) {
      const b = j * dims;
      let sum = 0;
      for (let d = 0; d < dims; d++) {
        const diff = (flat[a + d] as number) - (flat[b + d] as number);
        sum += diff * diff;
      }
      if (best.length === k && sum >= (bestD[k - 1] ?? Number.POSITIVE_INFINITY)) continue;
      let at = best.length;
      while (at > 0 && (bestD[at - 1] ?? 0) > sum) at--;
      best.splice(at, 0, j);
      bestD.splice(at, 0, sum);
      if (best.length > k) {
        best.pop();
        bestD.pop();
      }
    }
    // The point itself leads its list (distance 0), as UMAP expects.
    const self = best.indexOf(i);
    if (self > 0) {
      best.splice(self, 1);
      bestD.splice(self, 1);
      best.unshift(i);
      bestD.unshift(0);
    }
    indices.push(best);
    distances.push(bestD.map(Math.sqrt));
    if (performance.now() - sliceStarted > SLICE_MS) {
      await yieldToEventLoop();
      sliceStarted = performance.now();
    }
  }
  return { indices, distances };
}
