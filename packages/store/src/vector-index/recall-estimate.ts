import type { RandomSource } from '@memory/core';
import { type ListCentroids, listCount, listRanks, rowDot } from './kmeans.js';

// How a build measures the recall of the index it builds. Sample queries are made from the
// partition's own vectors in four ways, since real queries are not stored: a stored vector (its
// own row excluded), the midpoint of two, one with as much Gaussian noise as signal, and one cut to
// the few components that hold half its energy (short, keyword-like queries of sparse embedders).
// The build streams every vector past every query once, keeping each query's exact top 10 with the
// list each lies in; the recall at p probes is then the share of those top-10 vectors whose list is
// among the query's p nearest centroids. Within a list the search is exact, so this is the recall
// the search will have at p probes, for these queries, at build time.

/** Neighbours per query (recall@10). */
const TOP = 10;
export const ESTIMATOR_KINDS = ['stored', 'midpoint', 'noisy', 'truncated'] as const;

/** The sample queries of a build. */
export interface EstimateQueries {
  readonly dimensions: number;
  /** Queries × dimensions, unit vectors. */
  readonly vectors: Float32Array;
  /** Index into {@link ESTIMATOR_KINDS} per query. */
  readonly kinds: Uint8Array;
  /** The seq a query must not find (its own stored vector), or -1. */
  readonly exclude: Float64Array;
}

function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (const x of v) s += x * x;
  if (s === 0) return v;
  const inv = 1 / Math.sqrt(s);
  for (let d = 0; d < v.length; d++) v[d] = (v[d] as number) * inv;
  return v;
}

function gaussian(random: RandomSource): number {
  const u = Math.max(random.float(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random.float());
}

/** `perKind` queries of each kind from the sample (rows of `sample`, with their seqs). */
export function makeEstimateQueries(
  sample: Float32Array,
  seqs: readonly number[],
  dims: number,
  perKind: number,
  random: RandomSource,
): EstimateQueries {
  const n = seqs.length;
  const count = perKind * ESTIMATOR_KINDS.length;
  const vectors = new Float32Array(count * dims);
  const kinds = new Uint8Array(count);
  const exclude = new Float64Array(count).fill(-1);
  const row = (i: number) => sample.subarray(i * dims, i * dims + dims);
  const pick = () => Math.floor(random.float() * n);
  for (let q = 0; q < count; q++) {
    const kind = Math.floor(q / perKind);
    kinds[q] = kind;
    const i = pick();
    const out = new Float32Array(row(i));
    if (ESTIMATOR_KINDS[kind] === 'stored') exclude[q] = seqs[i] as number;
    else if (ESTIMATOR_KINDS[kind] === 'midpoint') {
      const other = row(pick());
      for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + (other[d] as number);
    } else if (ESTIMATOR_KINDS[kind] === 'noisy') {
      const scale = 1 / Math.sqrt(dims);
      for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + gaussian(random) * scale;
    } else {
      const order = Array.from({ length: dims }, (_, d) => d).sort(
        (a, b) => (out[b] as number) ** 2 - (out[a] as number) ** 2,
      );
      let energy = 0;
      for (const d of order) {
        if (energy >= 0.5) out[d] = 0;
        else energy += (out[d] as number) ** 2;
      }
    }
    vectors.set(normalize(out), q * dims);
  }
  return { dimensions: dims, vectors, kinds, exclude };
}

/** Each query's exact top 10 so far: (seq, score, list) triples, scores descending. */
export function emptyTopState(queries: number): Float64Array {
  const state = new Float64Array(queries * TOP * 3);
  for (let i = 0; i < queries * TOP; i++) {
    state[i * 3] = -1;
    state[i * 3 + 1] = Number.NEGATIVE_INFINITY;
    state[i * 3 + 2] = -1;
  }
  return state;
}

/** Passes one stored vector (in list `list`, 0-based) past every query. */
export function observeVector(
  state: Float64Array,
  queries: EstimateQueries,
  seq: number,
  vector: Float32Array,
  list: number,
): void {
  const count = queries.kinds.length;
  const dims = queries.dimensions;
  for (let q = 0; q < count; q++) {
    if (queries.exclude[q] === seq) continue;
    const score = rowDot(queries.vectors, q, vector, 0, dims);
    const base = q * TOP * 3;
    if (score <= (state[base + (TOP - 1) * 3 + 1] as number)) continue;
    let at = TOP - 1;
    while (at > 0 && score > (state[base + (at - 1) * 3 + 1] as number)) {
      state[base + at * 3] = state[base + (at - 1) * 3] as number;
      state[base + at * 3 + 1] = state[base + (at - 1) * 3 + 1] as number;
      state[base + at * 3 + 2] = state[base + (at - 1) * 3 + 2] as number;
      at--;
    }
    state[base + at * 3] = seq;
    state[base + at * 3 + 1] = score;
    state[base + at * 3 + 2] = list;
  }
}

/** Recall@10 per probe count (index p-1 holds p probes), overall and for the hardest kind of query. */
export interface RecallCurve {
  readonly mean: Float64Array;
  readonly worstKind: Float64Array;
  readonly queries: number;
}

/**
 * The recall each probe count would give the sample queries; yields after each query (ranking a
 * thousand centroids per query takes about a millisecond).
 */
export function* recallCurve(
  state: Float64Array,
  queries: EstimateQueries,
  centroids: ListCentroids,
): Generator<void, RecallCurve> {
  const lists = listCount(centroids);
  const count = queries.kinds.length;
  const kinds = ESTIMATOR_KINDS.length;
  const sums = Array.from({ length: kinds }, () => new Float64Array(lists));
  const perKind = new Int32Array(kinds);
  let used = 0;
  for (let q = 0; q < count; q++) {
    const base = q * TOP * 3;
    const found: number[] = [];
    for (let i = 0; i < TOP; i++)
      if ((state[base + i * 3] as number) >= 0) found.push(state[base + i * 3 + 2] as number);
    if (found.length === 0) continue;
    used++;
    const kind = queries.kinds[q] as number;
    perKind[kind] = (perKind[kind] as number) + 1;
    const ranks = listRanks(centroids, queries.vectors.subarray(q * queries.dimensions, (q + 1) * queries.dimensions));
    // A top-10 vector in the list of rank r is found by every probe count above r.
    const gained = new Float64Array(lists);
    for (const list of found) {
      const r = ranks[list] ?? lists - 1;
      gained[r] = (gained[r] as number) + 1 / found.length;
    }
    let acc = 0;
    const sum = sums[kind] as Float64Array;
    for (let p = 0; p < lists; p++) {
      acc += gained[p] as number;
      sum[p] = (sum[p] as number) + acc;
    }
    yield;
  }
  const mean = new Float64Array(lists);
  const worstKind = new Float64Array(lists).fill(1);
  for (let p = 0; p < lists; p++) {
    let total = 0;
    for (let k = 0; k < kinds; k++) {
      const n = perKind[k] as number;
      if (n === 0) continue;
      const r = ((sums[k] as Float64Array)[p] as number) / n;
      total += (sums[k] as Float64Array)[p] as number;
      worstKind[p] = Math.min(worstKind[p] as number, r);
    }
    mean[p] = used > 0 ? total / used : 1;
  }
  return { mean, worstKind, queries: used };
}

/**
 * The fewest probes whose recall, for the hardest kind of sample query, reaches `target` (at least
 * `minProbes`), and the mean recall at that count.
 */
export function chooseProbes(
  curve: RecallCurve,
  target: number,
  minProbes: number,
): { probes: number; recall: number } {
  const lists = curve.mean.length;
  let probes = lists;
  for (let p = 1; p <= lists; p++) {
    if ((curve.worstKind[p - 1] as number) >= target - 1e-9) {
      probes = p;
      break;
    }
  }
  probes = Math.min(lists, Math.max(probes, minProbes));
  return { probes, recall: curve.mean[probes - 1] as number };
}
