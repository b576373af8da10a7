import type { RandomSource } from '@memory/core';

/**
 * The lists of an ivf partition: unit centroids in two levels. A vector is assigned by its nearest
 * coarse group, then the nearest list inside that group (about 2·√lists dot products instead of
 * `lists`: assigning a million 384-d vectors to 1,024 flat lists would take minutes of CPU). Queries
 * rank every list, so a slightly misassigned vector is still found by a probe of a near list.
 */
export interface ListCentroids {
  readonly dimensions: number;
  /** Lists × dimensions, each a unit vector (list ids are 0-based here; cells add one). */
  readonly centroids: Float32Array;
  readonly groupCentroids: Float32Array;
  /** The coarse group of each list. */
  readonly groupOf: Int32Array;
  /** The lists of each group. */
  readonly listsOfGroup: readonly Int32Array[];
}

/** Number of lists. */
export function listCount(c: ListCentroids): number {
  return c.groupOf.length;
}

/** Multiply-adds between yields of the training generators: a few milliseconds of work. */
const WORK_PER_STEP = 4_000_000;

function dotAt(a: Float32Array, ai: number, b: Float32Array, bi: number, dims: number): number {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let d = 0;
  for (; d + 3 < dims; d += 4) {
    s0 += (a[ai + d] as number) * (b[bi + d] as number);
    s1 += (a[ai + d + 1] as number) * (b[bi + d + 1] as number);
    s2 += (a[ai + d + 2] as number) * (b[bi + d + 2] as number);
    s3 += (a[ai + d + 3] as number) * (b[bi + d + 3] as number);
  }
  for (; d < dims; d++) s0 += (a[ai + d] as number) * (b[bi + d] as number);
  return s0 + s1 + s2 + s3;
}

/** Dot product of row `ai` of `a` and row `bi` of `b` (both row-major with `dims` columns). */
export function rowDot(a: Float32Array, ai: number, b: Float32Array, bi: number, dims: number): number {
  return dotAt(a, ai * dims, b, bi * dims, dims);
}

function normalizeRows(m: Float32Array, rows: number, dims: number): void {
  for (let r = 0; r < rows; r++) {
    let s = 0;
    for (let d = 0; d < dims; d++) s += (m[r * dims + d] as number) ** 2;
    if (s === 0) continue;
    const inv = 1 / Math.sqrt(s);
    for (let d = 0; d < dims; d++) m[r * dims + d] = (m[r * dims + d] as number) * inv;
  }
}

/**
 * Spherical k-means (cosine) over the rows `members` of `data`, `iterations` rounds; yields between
 * slices of about {@link WORK_PER_STEP} multiply-adds so a caller can give the event loop back. An
 * emptied cluster is re-seeded from a random member of the largest one.
 */
export function* sphericalKMeans(
  data: Float32Array,
  dims: number,
  members: Int32Array,
  k: number,
  iterations: number,
  random: RandomSource,
): Generator<void, Float32Array> {
  const n = members.length;
  const centroids = new Float32Array(k * dims);
  // Seeds: distinct members spread over a random permutation's prefix.
  const order = Int32Array.from(members);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random.float() * (i + 1));
    const t = order[i] as number;
    order[i] = order[j] as number;
    order[j] = t;
  }
  for (let c = 0; c < k; c++) {
    const row = order[c % n] as number;
    centroids.set(data.subarray(row * dims, row * dims + dims), c * dims);
  }
  const assigned = new Int32Array(n);
  const perPoint = k * dims;
  const slice = Math.max(1, Math.floor(WORK_PER_STEP / perPoint));
  for (let it = 0; it < iterations; it++) {
    for (let start = 0; start < n; start += slice) {
      const end = Math.min(n, start + slice);
      for (let i = start; i < end; i++) {
        const row = members[i] as number;
        let best = 0;
        let bestScore = Number.NEGATIVE_INFINITY;
        for (let c = 0; c < k; c++) {
          const s = dotAt(data, row * dims, centroids, c * dims, dims);
          if (s > bestScore) {
            bestScore = s;
            best = c;
          }
        }
        assigned[i] = best;
      }
      yield;
    }
    const sums = new Float32Array(k * dims);
    const counts = new Int32Array(k);
    const perSlice = Math.max(1, Math.floor(WORK_PER_STEP / dims));
    for (let i = 0; i < n; i++) {
      const c = assigned[i] as number;
      const row = members[i] as number;
      counts[c] = (counts[c] as number) + 1;
      for (let d = 0; d < dims; d++)
        sums[c * dims + d] = (sums[c * dims + d] as number) + (data[row * dims + d] as number);
      if ((i + 1) % perSlice === 0) yield;
    }
    let largest = 0;
    for (let c = 1; c < k; c++) if ((counts[c] as number) > (counts[largest] as number)) largest = c;
    for (let c = 0; c < k; c++) {
      if ((counts[c] as number) > 0) {
        centroids.set(sums.subarray(c * dims, c * dims + dims), c * dims);
        continue;
      }
      // Re-seed an empty cluster near a random member of the largest one, nudged off it.
      const candidates: number[] = [];
      for (let i = 0; i < n && candidates.length < 64; i++) if (assigned[i] === largest) candidates.push(i);
      const pick = candidates[Math.floor(random.float() * candidates.length)] ?? 0;
      const row = members[pick] as number;
      for (let d = 0; d < dims; d++)
        centroids[c * dims + d] = (data[row * dims + d] as number) + (random.float() - 0.5) * 0.01;
    }
    normalizeRows(centroids, k, dims);
    yield;
  }
  return centroids;
}

/**
 * Trains about `lists` lists on the sample (rows of `sample`): √lists coarse groups first, then each
 * group split into lists in proportion to its share of the sample, so lists hold similar numbers.
 */
export function* trainListCentroids(
  sample: Float32Array,
  dims: number,
  lists: number,
  random: RandomSource,
  iterations = 8,
): Generator<void, ListCentroids> {
  const n = sample.length / dims;
  const all = Int32Array.from({ length: n }, (_, i) => i);
  const groups = Math.max(1, Math.min(n, Math.round(Math.sqrt(lists))));
  const groupCentroids = yield* sphericalKMeans(sample, dims, all, groups, iterations, random);
  const membersOf: number[][] = Array.from({ length: groups }, () => []);
  const perSlice = Math.max(1, Math.floor(WORK_PER_STEP / (groups * dims)));
  for (let i = 0; i < n; i++) {
    membersOf[nearestRow(groupCentroids, groups, sample, i, dims)]?.push(i);
    if ((i + 1) % perSlice === 0) yield;
  }
  const parts: Float32Array[] = [];
  const groupOf: number[] = [];
  const listsOfGroup: Int32Array[] = [];
  for (let g = 0; g < groups; g++) {
    const members = Int32Array.from(membersOf[g] ?? []);
    const k = Math.max(1, Math.min(members.length, Math.round((lists * members.length) / n)));
    const first = groupOf.length;
    if (members.length === 0) {
      // A group the sample left empty keeps its own centroid as its single list.
      parts.push(groupCentroids.slice(g * dims, g * dims + dims));
      groupOf.push(g);
    } else {
      parts.push(yield* sphericalKMeans(sample, dims, members, k, iterations, random));
      for (let i = 0; i < k; i++) groupOf.push(g);
    }
    listsOfGroup.push(Int32Array.from({ length: groupOf.length - first }, (_, i) => first + i));
  }
  const centroids = new Float32Array(groupOf.length * dims);
  let offset = 0;
  for (const part of parts) {
    centroids.set(part, offset);
    offset += part.length;
  }
  return { dimensions: dims, centroids, groupCentroids, groupOf: Int32Array.from(groupOf), listsOfGroup };
}

function nearestRow(centroids: Float32Array, rows: number, data: Float32Array, row: number, dims: number): number {
  let best = 0;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (let c = 0; c < rows; c++) {
    const s = dotAt(data, row * dims, centroids, c * dims, dims);
    if (s > bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best;
}

/** The list (0-based) a vector belongs to: nearest group, then nearest list in it. */
export function assignList(c: ListCentroids, vector: Float32Array): number {
  const dims = c.dimensions;
  const group = nearestRow(c.groupCentroids, c.listsOfGroup.length, vector, 0, dims);
  const lists = c.listsOfGroup[group] as Int32Array;
  let best = lists[0] as number;
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const list of lists) {
    const s = dotAt(vector, 0, c.centroids, list * dims, dims);
    if (s > bestScore) {
      bestScore = s;
      best = list;
    }
  }
  return best;
}

/** Every list's rank for a query (0 = nearest centroid), by a full scan of the centroids. */
export function listRanks(c: ListCentroids, query: Float32Array): Int32Array {
  const order = nearestLists(c, query, listCount(c));
  const ranks = new Int32Array(order.length);
  order.forEach((list, rank) => {
    ranks[list] = rank;
  });
  return ranks;
}

/** The `count` lists nearest to the query, nearest first. */
export function nearestLists(c: ListCentroids, query: Float32Array, count: number): Int32Array {
  const lists = listCount(c);
  const scores = new Float64Array(lists);
  for (let l = 0; l < lists; l++) scores[l] = dotAt(query, 0, c.centroids, l * c.dimensions, c.dimensions);
  const wanted = Math.min(count, lists);
  if (wanted <= 0) return new Int32Array(0);
  // Only the `wanted` best are ordered: the wanted-th best score from a native numeric sort of the
  // scores, then the lists at or above it (ties by list id, as a stable sort of every list would
  // give). Sorting all 2,000 lists of a 1M partition with a comparator took ~0.5 ms per query.
  const threshold = scores.slice().sort()[lists - wanted] as number;
  const ids = new Int32Array(wanted);
  let n = 0;
  for (let l = 0; l < lists && n < wanted; l++) if ((scores[l] as number) > threshold) ids[n++] = l;
  for (let l = 0; l < lists && n < wanted; l++) if (scores[l] === threshold) ids[n++] = l;
  return ids.sort((a, b) => (scores[b] as number) - (scores[a] as number) || a - b);
}
