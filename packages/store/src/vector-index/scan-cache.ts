import { yieldToEventLoop } from '@memory/core';
import type { Store } from '../open-store.js';
import { blobToVector } from '../repositories/embeddings.js';
import { cachedCentroids } from './centroids.js';
import { ScanMatrix } from './scan-matrix.js';
import { type ListedVector, listedVectorsBetween, vectorsOfList } from './vec-rows.js';

// The scan cache: per store, an in-memory int8 copy of large ivf partitions' listed vectors, grouped
// by list (a probe scans contiguous rows), scored by a WebAssembly SIMD kernel (scan-matrix.ts).
// A search uses an entry only when it covers exactly what vec0's lists hold for the search's
// snapshot: the same generation, and every vector drained into the lists up to the partition's
// `drainedSeq`. Otherwise vec0 answers while the entry fills or catches up in the background, in
// slices of about SLICE_MS with the event loop free between them. Deleted vectors stay in the
// matrix until a refill; the caller rescores candidates from the canonical vectors, which drops them.

/** What a search passes to use the cache. */
export interface ScanCacheOptions {
  /** Bytes all of a store's entries may hold together (0: the cache is off). */
  readonly bytes: number;
  /** Smallest partition (live vectors) worth an entry. @default SCAN_CACHE_MIN_VECTORS */
  readonly minVectors?: number;
  /** Rows one KNN of the fill reads at most (tests page small lists with it). @default 768 */
  readonly listPage?: number;
}

/**
 * Below this many vectors vec0 searches an ivf partition's probed lists (~10k vectors at 100k) in
 * a few milliseconds already; the cache's fill reads every vector of the partition once.
 */
export const SCAN_CACHE_MIN_VECTORS = 50_000;

/** Rows one KNN of the fill reads at most (vec0 allows 4,096; a larger list is read in pages). */
const LIST_PAGE = 768;
/** Target duration of one synchronous fill slice. */
const SLICE_MS = 8;
/** Spare rows for vectors drained after the fill, as a share of the filled rows (at least 1,024). */
const OVERFLOW_SHARE = 0.05;

/** The partition a search reads, as the cache needs it. */
export interface ScanPartition {
  readonly indexId: number;
  readonly agentId: string;
  readonly model: string;
  readonly table: string;
  readonly dimensions: number;
  readonly generation: number;
  readonly drainedSeq: number;
  readonly vectors: number;
  /** Vectors assigned to each list (0-based) as of `drainedSeq`, deleted ones included. */
  readonly sizes: Int32Array;
}

/** One partition's matrix: rows grouped by list, then an overflow area for later drains. */
export class ScanEntry {
  state: 'filling' | 'ready' | 'failed' = 'filling';
  /** The `drainedSeq` whose lists the rows hold. */
  covered: number;
  /** The fill or catch-up in flight. */
  busy: Promise<void> | undefined;
  readonly matrix: ScanMatrix;
  readonly seqs: Float64Array;
  private readonly listStart: Int32Array;
  private readonly listRows: Int32Array;
  private readonly overflowStart: number;
  private readonly overflowLists: Int32Array;
  private overflowRows = 0;

  constructor(
    readonly partition: ScanPartition,
    readonly id: string,
  ) {
    const { sizes } = partition;
    this.covered = partition.drainedSeq;
    this.listStart = new Int32Array(sizes.length);
    this.listRows = new Int32Array(sizes.length);
    let rows = 0;
    sizes.forEach((size, list) => {
      this.listStart[list] = rows;
      rows += Math.max(0, size);
    });
    this.overflowStart = rows;
    const overflow = Math.max(1024, Math.ceil(rows * OVERFLOW_SHARE));
    this.overflowLists = new Int32Array(overflow);
    const capacity = rows + overflow;
    this.matrix = new ScanMatrix(partition.dimensions, capacity, capacity);
    this.seqs = new Float64Array(capacity);
  }

  /** Bytes an entry for the partition would hold. */
  static bytesFor(partition: ScanPartition): number {
    let rows = 0;
    for (const size of partition.sizes) rows += Math.max(0, size);
    const capacity = rows + Math.max(1024, Math.ceil(rows * OVERFLOW_SHARE));
    const stride = Math.ceil(partition.dimensions / 16) * 16;
    return capacity * (stride + 4 + 4 + 8 + 4);
  }

  get bytes(): number {
    return this.matrix.bytes + this.seqs.byteLength + this.overflowLists.byteLength + this.listStart.byteLength * 2;
  }

  /** Rows held, in the lists and in the overflow. */
  get rows(): number {
    let rows = this.overflowRows;
    for (const n of this.listRows) rows += n;
    return rows;
  }

  /** Forgets every row (a fill that starts over). */
  clear(): void {
    this.listRows.fill(0);
    this.overflowRows = 0;
  }

  /** Adds a listed vector (a fresh one, list 0, is vec0's to search); false when it has no room. */
  add(row: ListedVector): boolean {
    const list = row.list - 1;
    if (list < 0) return true;
    let at: number;
    if (list < this.listRows.length && (this.listRows[list] as number) < (this.partition.sizes[list] as number)) {
      at = (this.listStart[list] as number) + (this.listRows[list] as number);
      this.listRows[list] = (this.listRows[list] as number) + 1;
    } else {
      if (this.overflowRows >= this.overflowLists.length) return false;
      this.overflowLists[this.overflowRows] = list;
      at = this.overflowStart + this.overflowRows;
      this.overflowRows++;
    }
    this.matrix.setRow(at, blobToVector(row.vector));
    this.seqs[at] = row.seq;
    return true;
  }

  /**
   * The seqs of the `pool` rows of lists `probed` (0-based) that score highest against the query,
   * best first (int8 scores: a ranking to rescore exactly).
   */
  candidates(probed: ArrayLike<number>, query: Float32Array, pool: number): number[] {
    const m = this.matrix;
    m.setQuery(query);
    const starts: number[] = [];
    const counts: number[] = [];
    let at = 0;
    for (let i = 0; i < probed.length; i++) {
      const list = probed[i] as number;
      const count = this.listRows[list] ?? 0;
      if (count === 0) continue;
      m.score(this.listStart[list] as number, count, at);
      starts.push(this.listStart[list] as number);
      counts.push(count);
      at += count;
    }
    const overflowAt = at;
    if (this.overflowRows > 0) m.score(this.overflowStart, this.overflowRows, at);
    const wanted = new Set<number>();
    for (let i = 0; i < probed.length; i++) wanted.add(probed[i] as number);
    const scores = m.scores();
    const top = new TopScores(pool);
    let out = 0;
    starts.forEach((start, s) => {
      const count = counts[s] as number;
      for (let r = 0; r < count; r++) top.offer(scores[out + r] as number, start + r);
      out += count;
    });
    for (let r = 0; r < this.overflowRows; r++)
      if (wanted.has(this.overflowLists[r] as number))
        top.offer(scores[overflowAt + r] as number, this.overflowStart + r);
    return top.rows().map((row) => this.seqs[row] as number);
  }
}

/** The `size` highest scores offered (a min-heap on score), with their rows. */
class TopScores {
  private readonly score: Float64Array;
  private readonly row: Int32Array;
  private n = 0;

  constructor(private readonly size: number) {
    this.score = new Float64Array(size);
    this.row = new Int32Array(size);
  }

  offer(score: number, row: number): void {
    if (this.size === 0) return;
    if (this.n < this.size) {
      let i = this.n++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if ((this.score[parent] as number) <= score) break;
        this.score[i] = this.score[parent] as number;
        this.row[i] = this.row[parent] as number;
        i = parent;
      }
      this.score[i] = score;
      this.row[i] = row;
      return;
    }
    if (score <= (this.score[0] as number)) return;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.n) break;
      const right = left + 1;
      const child = right < this.n && (this.score[right] as number) < (this.score[left] as number) ? right : left;
      if ((this.score[child] as number) >= score) break;
      this.score[i] = this.score[child] as number;
      this.row[i] = this.row[child] as number;
      i = child;
    }
    this.score[i] = score;
    this.row[i] = row;
  }

  rows(): number[] {
    const order = Array.from({ length: this.n }, (_, i) => i);
    order.sort((a, b) => (this.score[b] as number) - (this.score[a] as number));
    return order.map((i) => this.row[i] as number);
  }
}

/** One store's entries, least recently used first. */
export class ScanCache {
  private readonly entries = new Map<string, ScanEntry>();
  /** Partitions (by entry id) whose fill failed: vec0 answers them until a new generation. */
  private readonly failed = new Set<string>();
  /** Fills and catch-ups in flight, dropped entries' included (they stop at their next slice). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly store: Store) {}

  /**
   * The partition's entry when it is ready for this search (same generation, covering its
   * `drainedSeq`), else undefined, after starting whatever brings one about: a fill (the first
   * search of an eligible partition), a catch-up (drains since the fill), a refill.
   */
  use(partition: ScanPartition, options: ScanCacheOptions): ScanEntry | undefined {
    const prefix = `${partition.indexId}\u0000${partition.agentId}\u0000`;
    const id = `${prefix}${partition.generation}`;
    // A new generation (a rebuild) leaves the old one's entry nothing to answer.
    for (const [other, entry] of this.entries) if (other !== id && other.startsWith(prefix)) this.drop(entry);
    for (const other of this.failed) if (other !== id && other.startsWith(prefix)) this.failed.delete(other);
    if (options.bytes <= 0 || partition.vectors < (options.minVectors ?? SCAN_CACHE_MIN_VECTORS)) {
      const entry = this.entries.get(id);
      if (entry) this.drop(entry);
      return undefined;
    }
    const entry = this.entries.get(id);
    if (!entry) {
      if (this.failed.has(id)) return undefined;
      this.startFill(partition, id, options);
      return undefined;
    }
    this.entries.delete(id);
    this.entries.set(id, entry);
    if (entry.state !== 'ready') return undefined;
    if (entry.covered > partition.drainedSeq) {
      this.drop(entry);
      return undefined;
    }
    if (entry.covered < partition.drainedSeq) {
      this.startCatchUp(entry, partition.drainedSeq);
      return undefined;
    }
    return entry;
  }

  /** Drops an entry (its fill stops at its next slice); the next search of its partition refills. */
  drop(entry: ScanEntry): void {
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
    if (entry.state === 'filling') entry.state = 'failed';
  }

  /** Drops every entry. */
  clear(): void {
    for (const entry of [...this.entries.values()]) this.drop(entry);
    this.failed.clear();
  }

  /** Resolves once no fill or catch-up is in flight. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** Entries and their bytes (diagnostics and tests). */
  stats(): { entries: number; bytes: number; ready: number; rows: number } {
    let bytes = 0;
    let ready = 0;
    let rows = 0;
    for (const e of this.entries.values()) {
      bytes += e.bytes;
      rows += e.rows;
      if (e.state === 'ready') ready++;
    }
    return { entries: this.entries.size, bytes, ready, rows };
  }

  private startFill(partition: ScanPartition, id: string, options: ScanCacheOptions): void {
    const budget = options.bytes;
    const need = ScanEntry.bytesFor(partition);
    if (need > budget) return;
    let held = 0;
    for (const e of this.entries.values()) held += e.bytes;
    for (const e of [...this.entries.values()]) {
      if (held + need <= budget) break;
      held -= e.bytes;
      this.drop(e);
    }
    let entry: ScanEntry;
    try {
      entry = new ScanEntry(partition, id);
    } catch (error) {
      // WebAssembly memory could not be had: vec0 keeps answering.
      this.store.logger.warn('vector scan cache: could not allocate', { error: String(error) });
      return;
    }
    this.entries.set(id, entry);
    entry.busy = this.track(
      this.copy(entry, 0, partition.drainedSeq, options.listPage ?? LIST_PAGE).then((complete) => {
        entry.busy = undefined;
        if (complete && entry.state === 'filling') entry.state = 'ready';
        else if (this.entries.get(entry.id) === entry) {
          // Still wanted, yet the fill stopped (no room, a read failed, the store closed): no retry.
          if (!this.store.closed) this.failed.add(entry.id);
          this.drop(entry);
        }
      }),
    );
  }

  private startCatchUp(entry: ScanEntry, until: number): void {
    if (entry.busy) return;
    entry.busy = this.track(
      this.copy(entry, entry.covered, until, LIST_PAGE).then((complete) => {
        entry.busy = undefined;
        if (complete) entry.covered = until;
        else this.drop(entry);
      }),
    );
  }

  /** Keeps `work` (a copy and what follows it) in {@link inFlight} until it settles. */
  private track<T>(work: Promise<T>): Promise<T> {
    const done = work.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
    return work;
  }

  /**
   * Copies the partition's listed vectors with `after < seq ≤ until` into the entry, in slices;
   * false when it stopped early (the store closed, the entry was dropped or has no room, a read failed).
   */
  private async copy(entry: ScanEntry, after: number, until: number, page: number): Promise<boolean> {
    try {
      if (after === 0 && entry.state === 'filling') {
        const byList = await this.copyByList(entry, until, page);
        if (byList !== 'truncated') return byList === 'done';
        // A list held more than one KNN returns: copy in seq order instead.
        entry.clear();
      }
      return await this.copyBySeq(entry, after, until);
    } catch (error) {
      if (!this.store.closed) this.store.logger.warn('vector scan cache: fill failed', { error: String(error) });
      return false;
    }
  }

  /** Whether the fill should stop (the store closed, the entry was dropped). */
  private stopped(entry: ScanEntry): boolean {
    return this.store.closed || this.entries.get(entry.id) !== entry;
  }

  /**
   * The fill, list by list: one KNN of the list's centroid per list reads its rows and vectors from
   * vec0's chunks (a few microseconds a vector, where a lookup per vector by rowid costs 15–60).
   * Vectors drained after the fill's `drainedSeq` (`until`) are left to the catch-up.
   */
  private async copyByList(entry: ScanEntry, until: number, page: number): Promise<'done' | 'stopped' | 'truncated'> {
    const { partition } = entry;
    const dims = partition.dimensions;
    const key = { indexId: partition.indexId, agentId: partition.agentId, generation: partition.generation };
    // Where the copy is: the list, and for a list read in pages, the last page's farthest distance
    // and the seqs seen (rows at exactly that distance come again in the next page).
    let list = 0;
    let from: number | undefined;
    let seen = new Set<number>();
    while (list < partition.sizes.length) {
      await yieldToEventLoop();
      if (this.stopped(entry)) return 'stopped';
      const started = performance.now();
      const result = this.store.read((sql): 'next' | 'stopped' | 'truncated' => {
        const centroids = cachedCentroids(sql, key, dims);
        if (!centroids) return 'stopped';
        do {
          const size = partition.sizes[list] as number;
          const k = Math.min(page, 2 * size + 64);
          const centroid = centroids.centroids.subarray(list * dims, list * dims + dims);
          const rows = size > 0 ? vectorsOfList(sql, partition.table, partition, list + 1, centroid, k, from) : [];
          let added = 0;
          for (const row of rows) {
            if (seen.has(row.seq)) continue;
            seen.add(row.seq);
            added++;
            if (row.seq <= until && !entry.add({ seq: row.seq, vector: row.vector, list: list + 1 })) return 'stopped';
          }
          if (rows.length < k) {
            list++;
            from = undefined;
            seen = new Set();
          } else if (from !== undefined && added === 0) {
            // A page of rows all at one distance: paging cannot get past them.
            return 'truncated';
          } else from = (rows.at(-1) as { distance: number }).distance;
        } while (list < partition.sizes.length && performance.now() - started < SLICE_MS);
        return 'next';
      });
      if (result !== 'next') return result;
    }
    return 'done';
  }

  /** The fill or a catch-up in seq order: canonical vectors, each with its vec0 row's list. */
  private async copyBySeq(entry: ScanEntry, after: number, until: number): Promise<boolean> {
    const { partition } = entry;
    let cursor = after;
    let batch = 256;
    for (;;) {
      // The search that starts a fill or catch-up is not held up by its first slice.
      await yieldToEventLoop();
      if (this.stopped(entry)) return false;
      const started = performance.now();
      const rows = this.store.read((sql) =>
        listedVectorsBetween(sql, partition.table, partition, cursor, until, batch),
      );
      for (const row of rows) if (!entry.add(row)) return false;
      if (rows.length < batch) return true;
      cursor = (rows.at(-1) as ListedVector).seq;
      // Rows cost 15–60 µs each (more where pages are cold): grow slowly, shrink at once.
      const took = Math.max(0.5, performance.now() - started);
      batch = Math.max(32, Math.min(2 * batch, 1024, Math.round((batch * SLICE_MS) / took)));
    }
  }
}

const caches = new WeakMap<Store, ScanCache>();

/** The store's scan cache (created on first use; emptied when the store closes). */
export function scanCacheOf(store: Store): ScanCache {
  let cache = caches.get(store);
  if (!cache) {
    const created = new ScanCache(store);
    caches.set(store, created);
    // A closed store's entries are dropped at once (their fills stop at the next slice), not when
    // the store object is collected.
    store.onClose(() => created.clear());
    cache = created;
  }
  return cache;
}

/**
 * Resolves once the store's scan cache has no fill or catch-up in flight (benchmarks wait for it
 * before measuring; a closed store's fills stop at their next slice).
 */
export function scanCacheIdle(store: Store): Promise<void> {
  return caches.get(store)?.idle() ?? Promise.resolve();
}
