import type { SqlExecutor } from '../internal/sql.js';
import { blobToVector } from '../repositories/embeddings.js';
import { buildEstimate, deleteBuild, findBuild, insertBuild, updateBuild } from './builds.js';
import { CHUNK_SIZE, FRESH_LIST } from './cells.js';
import {
  addListSizes,
  cachedCentroids,
  cachedListSizes,
  deleteCentroids,
  rememberListSizes,
  saveCentroids,
} from './centroids.js';
import { modelVectorsBetween, partitionVectorsAfter } from './embedding-reads.js';
import { advanceIndexFill, type VectorIndex } from './indexes.js';
import { assignList, type ListCentroids, listCount } from './kmeans.js';
import {
  countPartitionVectors,
  ensurePartition,
  findPartition,
  setDrained,
  setOtherGeneration,
  switchPartition,
  takeGeneration,
  type VectorPartition,
} from './partitions.js';
import { chooseProbes, type EstimateQueries, observeVector, recallCurve } from './recall-estimate.js';
import { deleteVecRow, insertVecRow } from './vec-rows.js';

// The index's upkeep as bounded steps, each one short write transaction that reads its state from
// the database first: any process may run the next step, a crash loses at most the step in flight,
// and a step whose plan went stale (another process got there first) does nothing.

/**
 * Bytes of new vec0 chunks one step may start. vec0 writes a chunk whole when a list first needs it
 * (CHUNK_SIZE vectors: 196 KB at 384-d), and lists fill at the same pace, so a build's lists all
 * start their next chunk within a few thousand vectors of each other: a step sized in the calm
 * before such a wave wrote hundreds of chunks and held the loop 60–80 ms in its commit at 1M.
 */
const NEW_CHUNK_BYTES_PER_STEP = 2 * 1024 * 1024;

/**
 * The new vec0 chunks one step has started: a row is admitted unless it would start more than
 * {@link NEW_CHUNK_BYTES_PER_STEP} allows (the first row always is). Admitting advances `sizes`
 * (vectors per list).
 */
class ChunkBudget {
  readonly #allowed: number;
  #started = 0;
  #admitted = 0;

  constructor(
    readonly sizes: Int32Array,
    dims: number,
  ) {
    this.#allowed = Math.max(1, Math.floor(NEW_CHUNK_BYTES_PER_STEP / (CHUNK_SIZE * dims * 4)));
  }

  admit(list: number): boolean {
    const size = this.sizes[list] ?? 0;
    if (size % CHUNK_SIZE === 0) {
      if (this.#started >= this.#allowed && this.#admitted > 0) return false;
      this.#started++;
    }
    this.sizes[list] = size + 1;
    this.#admitted++;
    return true;
  }
}

/**
 * How many of `lists` (0-based list per row, in order) one step takes: all, or up to the row that
 * would start more new chunks than {@link NEW_CHUNK_BYTES_PER_STEP} allows (at least one row).
 * `sizes` (vectors per list) is advanced by the rows taken.
 */
export function rowsWithinChunkBudget(lists: readonly number[], sizes: Int32Array, dims: number): number {
  const budget = new ChunkBudget(sizes, dims);
  const taken = lists.findIndex((list) => !budget.admit(list));
  return taken < 0 ? lists.length : taken;
}

/**
 * Asked after each row a step writes: false stops the step there (it commits the rows written so
 * far). A row's cost varies (at a million vectors one assign step of 27 rows took 59 ms where the
 * steps' median was 7 ms), so a step sized from the last steps' average can run several times its
 * target; the caller's deadline bounds it. At least one row is always written, so every step makes
 * progress.
 */
export type StepDeadline = () => boolean;

const always: StepDeadline = () => true;

/** What one step did: rows handled, and whether that piece of upkeep is finished. */
export interface StepResult {
  readonly rows: number;
  readonly done: boolean;
  /** An ivf build copied every vector and waits for its probe count to switch. */
  readonly switchReady?: boolean;
}

/** The probe count an ivf build switches with, and the recall its sample queries measured there. */
export interface ProbeChoice {
  readonly probes: number;
  readonly recall: number;
  readonly queries: number;
}

/** How the build chooses its probe count. */
export interface ProbePolicy {
  /** Recall the hardest kind of sample query must reach. */
  readonly targetRecall: number;
  /** Fewest lists probed, as a share of the lists. */
  readonly minProbeShare: number;
}

/**
 * Copies up to `batch` vectors stored before the index existed into it (fresh lists of their
 * agents' partitions); the index becomes `ready` when the copy reaches `fillUntil`.
 */
export function fillBatch(sql: SqlExecutor, index: VectorIndex, batch: number, now: number): StepResult {
  const rows = modelVectorsBetween(sql, index.model, index.dimensions, index.fillCursor, index.fillUntil, batch);
  const counts = new Map<string, number>();
  for (const row of rows) {
    const partition = ensurePartition(sql, index.id, row.agentId, now);
    insertVecRow(sql, index.tableName, {
      agentId: row.agentId,
      generation: partition.generation,
      list: FRESH_LIST,
      seq: row.seq,
      vector: blobToVector(row.vector),
    });
    counts.set(row.agentId, (counts.get(row.agentId) ?? 0) + 1);
  }
  for (const [agentId, n] of counts) countPartitionVectors(sql, index.id, agentId, n, now);
  const cursor = rows.length < batch ? index.fillUntil : (rows.at(-1)?.seq ?? index.fillUntil);
  advanceIndexFill(sql, index, cursor, now);
  return { rows: rows.length, done: cursor >= index.fillUntil };
}

/**
 * Starts rebuilding a partition as planned from `planned` (a snapshot read before the centroids
 * were trained): false, writing nothing, when the partition moved on since (another build started
 * or finished). The new generation is one past any the partition has had, so cached centroids
 * of an abandoned build are never mistaken for the new one's.
 */
export function beginBuild(
  sql: SqlExecutor,
  index: VectorIndex,
  planned: VectorPartition,
  target: { layout: 'exact' | 'ivf'; centroids?: ListCentroids; queries?: EstimateQueries },
  now: number,
): boolean {
  const current = findPartition(sql, index.id, planned.agentId);
  if (!current || current.generation !== planned.generation || current.otherGeneration !== null) return false;
  if (findBuild(sql, index.id, planned.agentId)) return false;
  const generation = takeGeneration(sql, index.id, planned.agentId, now);
  const key = { indexId: index.id, agentId: planned.agentId, generation };
  if (target.centroids) saveCentroids(sql, key, target.centroids);
  insertBuild(sql, { ...key, targetLayout: target.layout }, target.queries, now);
  setOtherGeneration(sql, index.id, planned.agentId, generation, now);
  return true;
}

/**
 * Copies the next `batch` vectors of a partition into the generation being built (into their
 * lists), feeding the recall estimate. When none are left it switches the partition to the new
 * generation in the same transaction, so no vector is missed, and the old generation's removal
 * begins. An ivf build switches only with its probe count (`choice`, computed from the estimate
 * between steps by {@link chooseBuildProbes}); without one it reports `switchReady`.
 */
export function assignBatch(
  sql: SqlExecutor,
  index: VectorIndex,
  agentId: string,
  batch: number,
  choice: ProbeChoice | undefined,
  now: number,
  more: StepDeadline = always,
): StepResult {
  const build = findBuild(sql, index.id, agentId);
  const partition = findPartition(sql, index.id, agentId);
  if (build?.phase !== 'assign' || !partition) return { rows: 0, done: true };
  const key = { indexId: index.id, agentId, generation: build.generation };
  const stored = build.targetLayout === 'ivf' ? cachedCentroids(sql, key, index.dimensions) : undefined;
  if (build.targetLayout === 'ivf' && !stored) {
    abandonBuild(sql, index, partition, now);
    return { rows: 0, done: true };
  }
  const estimate = stored ? buildEstimate(sql, build) : undefined;
  const read = partitionVectorsAfter(sql, agentId, index.model, build.cursor, batch);
  // The lists' sizes so far (the previous step's, from the cache, while the cursor is where it left
  // them). Each row is assigned as it is written: a step cut short by its deadline or the chunk
  // budget has not assigned the rows it did not reach.
  const budget = stored
    ? new ChunkBudget(Int32Array.from(cachedListSizes(sql, { ...key, drainedSeq: build.cursor })), index.dimensions)
    : undefined;
  const sizes = new Map<number, number>();
  let taken = 0;
  while (taken < read.length) {
    const row = read[taken] as (typeof read)[number];
    const vector = blobToVector(row.vector);
    const list = stored ? assignList(stored, vector) : -1;
    if (budget && !budget.admit(list)) break;
    insertVecRow(sql, index.tableName, { agentId, generation: build.generation, list: list + 1, seq: row.seq, vector });
    if (list >= 0) sizes.set(list, (sizes.get(list) ?? 0) + 1);
    if (estimate) observeVector(estimate.state, estimate.queries, row.seq, vector, list);
    taken++;
    if (!more()) break;
  }
  const rows = read.slice(0, taken);
  addListSizes(sql, key, sizes);
  const last = rows.at(-1);
  if (last) {
    updateBuild(sql, build, { cursor: last.seq, ...(estimate ? { estimate: estimate.state } : {}) }, now);
    if (budget) rememberListSizes(sql, { ...key, drainedSeq: last.seq }, budget.sizes);
    return { rows: rows.length, done: false };
  }
  // Every vector is in the new generation: switch.
  const lists = stored ? listCount(stored) : 0;
  if (stored && !choice) return { rows: 0, done: false, switchReady: true };
  const probes = stored ? Math.min(lists, choice?.probes ?? lists) : 0;
  switchPartition(
    sql,
    index.id,
    agentId,
    {
      generation: build.generation,
      layout: build.targetLayout,
      lists,
      probes,
      estimatedRecall: stored ? (choice?.recall ?? null) : null,
      recallQueries: stored ? (choice?.queries ?? 0) : 0,
      builtVectors: partition.vectors,
      drainedSeq: build.cursor,
      retiring: partition.generation,
    },
    now,
  );
  updateBuild(sql, build, { cursor: 0, phase: 'cleanup', generation: partition.generation }, now);
  return { rows: 0, done: false };
}

/** What choosing a build's probe count needs: its centroids and its recall estimate's state. */
export function buildEstimateInputs(
  sql: SqlExecutor,
  index: VectorIndex,
  agentId: string,
): { centroids: ListCentroids; queries: EstimateQueries; state: Float64Array } | undefined {
  const build = findBuild(sql, index.id, agentId);
  if (!build) return undefined;
  const centroids = cachedCentroids(
    sql,
    { indexId: index.id, agentId, generation: build.generation },
    index.dimensions,
  );
  const estimate = buildEstimate(sql, build);
  return centroids && estimate ? { centroids, ...estimate } : undefined;
}

/**
 * The fewest probes whose recall on the build's sample queries reaches the target (a generator:
 * one sample query per step, since ranking a thousand centroids takes about a millisecond).
 */
export function* chooseBuildProbes(
  inputs: { centroids: ListCentroids; queries: EstimateQueries; state: Float64Array },
  policy: ProbePolicy,
): Generator<void, ProbeChoice> {
  const curve = yield* recallCurve(inputs.state, inputs.queries, inputs.centroids);
  const chosen = chooseProbes(
    curve,
    policy.targetRecall,
    Math.ceil(policy.minProbeShare * listCount(inputs.centroids)),
  );
  return { probes: chosen.probes, recall: chosen.recall, queries: curve.queries };
}

/** Removes the next `batch` vectors of the retired generation; at the end, its centroids and the build. */
export function cleanupBatch(
  sql: SqlExecutor,
  index: VectorIndex,
  agentId: string,
  batch: number,
  now: number,
  more: StepDeadline = always,
): StepResult {
  const build = findBuild(sql, index.id, agentId);
  if (build?.phase !== 'cleanup') return { rows: 0, done: true };
  const read = partitionVectorsAfter(sql, agentId, index.model, build.cursor, batch);
  let taken = 0;
  while (taken < read.length) {
    deleteVecRow(sql, index.tableName, build.generation, (read[taken] as (typeof read)[number]).seq);
    taken++;
    if (!more()) break;
  }
  const rows = read.slice(0, taken);
  const last = rows.at(-1);
  if (last) {
    updateBuild(sql, build, { cursor: last.seq }, now);
    return { rows: rows.length, done: false };
  }
  deleteCentroids(sql, { indexId: index.id, agentId, generation: build.generation });
  setOtherGeneration(sql, index.id, agentId, null, now);
  deleteBuild(sql, build);
  return { rows: 0, done: true };
}

/** Gives up a build whose centroids are missing: its rows and state go, the old generation stays. */
function abandonBuild(sql: SqlExecutor, index: VectorIndex, partition: VectorPartition, now: number): void {
  const build = findBuild(sql, index.id, partition.agentId);
  if (!build) return;
  // Rows already copied are removed by a cleanup pass over the abandoned generation.
  updateBuild(sql, build, { cursor: 0, phase: 'cleanup' }, now);
  setOtherGeneration(sql, index.id, partition.agentId, build.generation, now);
}

/**
 * Moves the next `batch` fresh vectors of an ivf partition into their lists (delete and insert in
 * one transaction, so a query never misses one). Also while a rebuild is under way: the answering
 * generation keeps its lists current (the build copies from the stored vectors, not from it), so
 * its fresh list, which every query searches whole in one call, stays short however long the
 * rebuild of a large partition takes.
 */
export function drainBatch(
  sql: SqlExecutor,
  index: VectorIndex,
  agentId: string,
  batch: number,
  now: number,
  more: StepDeadline = always,
): StepResult {
  const partition = findPartition(sql, index.id, agentId);
  if (partition?.layout !== 'ivf') return { rows: 0, done: true };
  const key = { indexId: index.id, agentId, generation: partition.generation };
  const stored = cachedCentroids(sql, key, index.dimensions);
  if (!stored) return { rows: 0, done: true };
  const read = partitionVectorsAfter(sql, agentId, index.model, partition.drainedSeq, batch);
  const budget = new ChunkBudget(
    Int32Array.from(cachedListSizes(sql, { ...key, drainedSeq: partition.drainedSeq })),
    index.dimensions,
  );
  const sizes = new Map<number, number>();
  let taken = 0;
  while (taken < read.length) {
    const row = read[taken] as (typeof read)[number];
    const vector = blobToVector(row.vector);
    const list = assignList(stored, vector);
    if (!budget.admit(list)) break;
    deleteVecRow(sql, index.tableName, partition.generation, row.seq);
    insertVecRow(sql, index.tableName, {
      agentId,
      generation: partition.generation,
      list: list + 1,
      seq: row.seq,
      vector,
    });
    sizes.set(list, (sizes.get(list) ?? 0) + 1);
    taken++;
    if (!more()) break;
  }
  const rows = read.slice(0, taken);
  addListSizes(sql, key, sizes);
  const complete = read.length < batch && rows.length === read.length;
  const seq = rows.at(-1)?.seq ?? partition.drainedSeq;
  setDrained(sql, key, { seq, moved: rows.length, complete }, now);
  rememberListSizes(sql, { ...key, drainedSeq: seq }, budget.sizes);
  return { rows: rows.length, done: complete };
}
