// Ground truth for the vector benchmarks: exact cosine top-k by a full scan over unit vectors, and
// neighbour recall that counts ties (any vector scoring at least the k-th exact score is a true
// neighbour, so a different choice among equal scores is not a miss).

/** Dot products of the query with the given rows of a row-major matrix. */
export function scoreRows(matrix: Float32Array, dims: number, rows: Int32Array, query: Float32Array): Float32Array {
  const out = new Float32Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const base = (rows[r] as number) * dims;
    let s0 = 0;
    let s1 = 0;
    let d = 0;
    for (; d + 1 < dims; d += 2) {
      s0 += (matrix[base + d] as number) * (query[d] as number);
      s1 += (matrix[base + d + 1] as number) * (query[d + 1] as number);
    }
    if (d < dims) s0 += (matrix[base + d] as number) * (query[d] as number);
    out[r] = s0 + s1;
  }
  return out;
}

/** The k-th best score among `scores` (the exact top-k threshold). */
export function kthScore(scores: Float32Array, k: number): number {
  if (scores.length <= k) return Math.min(...scores);
  // A partial selection: keep the k best seen.
  const best = new Float32Array(k).fill(Number.NEGATIVE_INFINITY);
  for (const s of scores) {
    if (s <= (best[k - 1] as number)) continue;
    let i = k - 1;
    while (i > 0 && s > (best[i - 1] as number)) {
      best[i] = best[i - 1] as number;
      i--;
    }
    best[i] = s;
  }
  return best[k - 1] as number;
}

/**
 * Share of the exact top-k that the returned rows cover, ties counted: a returned row is a true
 * neighbour when its exact score reaches the k-th exact score (minus float32 rounding).
 */
export function neighbourRecall(returnedScores: readonly number[], kth: number, k: number): number {
  const hits = returnedScores.slice(0, k).filter((s) => s >= kth - 1e-5).length;
  return Math.min(1, hits / k);
}
