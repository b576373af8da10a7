import { performance } from 'node:perf_hooks';
import { createSeededRandom, type RandomSource, yieldToEventLoop } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Store } from '../open-store.js';
import { blobToVector } from '../repositories/embeddings.js';
import { auditStep, pendingAuditIndex } from './audits.js';
import { listBuilds } from './builds.js';
import { partitionSeqRange, partitionVectorAtOrAfter } from './embedding-reads.js';
import { ensureVectorIndex, findVectorIndex, legacyMirror, listVectorIndexes, type VectorIndex } from './indexes.js';
import { type ListCentroids, trainListCentroids } from './kmeans.js';
import {
  partitionsNeedingBuild,
  partitionsNeedingDrain,
  setPartitionVectors,
  type VectorPartition,
} from './partitions.js';
import { type EstimateQueries, makeEstimateQueries } from './recall-estimate.js';
import {
  assignBatch,
  beginBuild,
  buildEstimateInputs,
  chooseBuildProbes,
  cleanupBatch,
  drainBatch,
  fillBatch,
  type ProbeChoice,
  type ProbePolicy,
  type StepDeadline,
  type StepResult,
} from './upkeep-steps.js';

// A step stops writing rows once it has run this many times its target (`stepMs`): the pacer sizes
// steps from the last ones' average cost per row, which a run of expensive rows can exceed several
// times over (an assign step of 27 rows took 59 ms at a million vectors against a 10 ms target).
const STEP_DEADLINE_FACTOR = 2;

/** How the index chooses layouts and how its upkeep paces itself. */
export interface VectorUpkeepOptions extends ProbePolicy {
  /** Partitions up to this many vectors stay exact; larger ones are rebuilt as ivf. */
  readonly exactMaxVectors: number;
  /** Fresh (unassigned) vectors of an ivf partition that start a drain into its lists. */
  readonly drainAfter: number;
  /** Target length of one synchronous step, in milliseconds. */
  readonly stepMs: number;
}

/** What one upkeep run did. */
export interface VectorUpkeepReport {
  readonly steps: number;
  readonly rows: number;
  /** True when no upkeep was left; false when the run stopped at its budget or signal. */
  readonly finished: boolean;
  /** The longest synchronous step, in milliseconds, and what it was. */
  readonly longestStepMs: number;
  readonly longestStep: string;
  /** The most CPU time one step used (the wall time above also counts time the process waited for a core). */
  readonly longestStepCpuMs: number;
}

type Task =
  | { kind: 'create'; model: string; dimensions: number }
  | { kind: 'fill'; index: VectorIndex }
  | { kind: 'assign' | 'cleanup'; index: VectorIndex; agentId: string }
  | { kind: 'start'; index: VectorIndex; partition: VectorPartition }
  | { kind: 'drain'; index: VectorIndex; agentId: string }
  | { kind: 'audit'; index: VectorIndex };

/** The next piece of upkeep, or undefined when the index needs none. Reads only. */
export function nextUpkeepTask(sql: SqlExecutor, options: VectorUpkeepOptions): Task | undefined {
  // A database from an earlier version: its legacy mirror's model gets an index, filled in the background.
  const legacy = legacyMirror(sql);
  if (legacy && !findVectorIndex(sql, legacy.model, legacy.dimensions)) return { kind: 'create', ...legacy };
  const indexes = listVectorIndexes(sql);
  const byId = new Map(indexes.map((i) => [i.id, i]));
  const filling = indexes.find((i) => i.status === 'filling');
  if (filling) return { kind: 'fill', index: filling };
  // Drains first, a rebuild under way or not: an undrained fresh list is searched whole by every query.
  for (const index of indexes) {
    const drain = partitionsNeedingDrain(sql, index.id, options.drainAfter)[0];
    if (drain) return { kind: 'drain', index, agentId: drain.agentId };
  }
  for (const build of listBuilds(sql)) {
    const index = byId.get(build.indexId);
    if (index) return { kind: build.phase, index, agentId: build.agentId };
  }
  for (const index of indexes) {
    const due = partitionsNeedingBuild(sql, index.id, options.exactMaxVectors).find((p) => p.otherGeneration === null);
    if (due) return { kind: 'start', index, partition: due };
  }
  const audited = byId.get(pendingAuditIndex(sql) ?? -1);
  if (audited) return { kind: 'audit', index: audited };
  return undefined;
}

/** Whether any vector-index upkeep is due (a cheap check for the engine's schedule). */
export function vectorUpkeepDue(sql: SqlExecutor, options: VectorUpkeepOptions): boolean {
  return nextUpkeepTask(sql, options) !== undefined;
}

/**
 * Lists for an ivf partition of `vectors` vectors: √n (lists of √n vectors) up to 250k, then lists
 * of about 500. At 1M, 4,096 lists reached 0.95 recall comparing half the vectors 1,000 lists did
 * (37k vs 74k) for twice the probes; each probe is a vec0 query with a fixed cost, so 2,000.
 */
export function listCountFor(vectors: number): number {
  return Math.max(16, Math.min(4096, Math.round(Math.max(Math.sqrt(vectors), vectors / 500))));
}

/** Adapts a batch size so steps take about `stepMs`. */
class Pacer {
  readonly #sizes = new Map<string, number>();
  readonly #stepMs: number;
  longest = 0;
  longestKind = '';
  longestCpu = 0;
  #cpu = process.cpuUsage();

  /** Marks the start of a synchronous step (for its CPU time). */
  start(): void {
    this.#cpu = process.cpuUsage();
  }

  constructor(stepMs: number) {
    this.#stepMs = stepMs;
  }

  observe(kind: string, ms: number): void {
    const cpu = process.cpuUsage(this.#cpu);
    this.longestCpu = Math.max(this.longestCpu, (cpu.user + cpu.system) / 1000);
    if (ms <= this.longest) return;
    this.longest = ms;
    this.longestKind = kind;
  }

  size(kind: string): number {
    return this.#sizes.get(kind) ?? 64;
  }

  record(kind: string, rows: number, ms: number): void {
    this.observe(kind, ms);
    if (rows === 0) return;
    const perRow = ms / rows;
    const next = Math.round(this.#stepMs / Math.max(perRow, 0.0005));
    const previous = this.size(kind);
    // At most half again per step, so one fast step cannot make the next one long.
    this.#sizes.set(kind, Math.max(8, Math.min(Math.ceil(previous * 1.5), next, 20_000)));
  }
}

/**
 * Runs the vector index's upkeep in bounded synchronous steps, yielding to the event loop between
 * them, until nothing is left, `budgetMs` has passed or `signal` aborts: fills of new indexes,
 * partition rebuilds (exact ↔ ivf, retraining as a partition grows), drains of fresh vectors
 * into their lists, and audits of this process's real queries (which set the probe count). Every step commits its progress, so another process, or a later run, carries
 * on where this one stopped; queries keep reading the old generation until a build switches.
 */
export async function runVectorUpkeep(
  store: Store,
  options: VectorUpkeepOptions,
  control: { signal?: AbortSignal | undefined; budgetMs?: number | undefined; random?: RandomSource | undefined } = {},
): Promise<VectorUpkeepReport> {
  const started = performance.now();
  const budget = control.budgetMs ?? Number.POSITIVE_INFINITY;
  const pacer = new Pacer(options.stepMs);
  let steps = 0;
  let rows = 0;
  const timed = (kind: string, fn: (sql: SqlExecutor, more: StepDeadline) => StepResult): StepResult => {
    pacer.start();
    const t = performance.now();
    const deadline = t + STEP_DEADLINE_FACTOR * options.stepMs;
    const result = store.write((sql) => fn(sql, () => performance.now() < deadline));
    pacer.record(kind, result.rows, performance.now() - t);
    steps++;
    rows += result.rows;
    return result;
  };
  while (!control.signal?.aborted && performance.now() - started < budget && !store.closed) {
    const task = store.read((sql) => nextUpkeepTask(sql, options));
    if (!task)
      return {
        steps,
        rows,
        finished: true,
        longestStepMs: pacer.longest,
        longestStep: pacer.longestKind,
        longestStepCpuMs: pacer.longestCpu,
      };
    const now = () => store.clock.now();
    switch (task.kind) {
      case 'create':
        timed('create', (sql) => {
          ensureVectorIndex(sql, store.vector.available, task.model, task.dimensions, now());
          return { rows: 0, done: true };
        });
        break;
      case 'fill':
        timed('fill', (sql) => fillBatch(sql, task.index, pacer.size('fill'), now()));
        break;
      case 'assign': {
        const step = timed('assign', (sql, more) =>
          assignBatch(sql, task.index, task.agentId, pacer.size('assign'), undefined, now(), more),
        );
        if (!step.switchReady) break;
        // Every vector is copied: the probe count from the estimate (sliced), then the switch, which
        // copies any vector written meanwhile first and switches only when none is left.
        const inputs = store.read((sql) => buildEstimateInputs(sql, task.index, task.agentId));
        const choice = inputs
          ? await runSliced(chooseBuildProbes(inputs, options), options.stepMs, pacer, control.signal)
          : fallbackChoice;
        if (choice === undefined)
          return {
            steps,
            rows,
            finished: false,
            longestStepMs: pacer.longest,
            longestStep: pacer.longestKind,
            longestStepCpuMs: pacer.longestCpu,
          };
        while (!control.signal?.aborted) {
          const switched = timed('assign', (sql, more) =>
            assignBatch(sql, task.index, task.agentId, pacer.size('assign'), choice, now(), more),
          );
          if (switched.rows === 0) break;
          await yieldToEventLoop();
        }
        break;
      }
      case 'cleanup':
        timed('cleanup', (sql, more) =>
          cleanupBatch(sql, task.index, task.agentId, pacer.size('cleanup'), now(), more),
        );
        break;
      case 'drain':
        timed('drain', (sql, more) => drainBatch(sql, task.index, task.agentId, pacer.size('drain'), now(), more));
        break;
      case 'audit':
        timed('audit', (sql) => auditStep(sql, task.index, pacer.size('audit'), options, now()));
        break;
      case 'start': {
        const plan = await planBuild(store, task.index, task.partition, options, pacer, control);
        if (plan === undefined)
          return {
            steps,
            rows,
            finished: false,
            longestStepMs: pacer.longest,
            longestStep: pacer.longestKind,
            longestStepCpuMs: pacer.longestCpu,
          };
        if (plan === null) break;
        timed('start', (sql) => ({
          rows: 0,
          done: !beginBuild(sql, task.index, task.partition, plan, now()),
        }));
        break;
      }
    }
    // A build at a million vectors commits back to back: a long WAL waits here to restart.
    await store.walBacklog();
    await yieldToEventLoop();
  }
  return {
    steps,
    rows,
    finished: false,
    longestStepMs: pacer.longest,
    longestStep: pacer.longestKind,
    longestStepCpuMs: pacer.longestCpu,
  };
}

/** When a build's estimate cannot be read: probe every list (exact) until audits set the count. */
const fallbackChoice: ProbeChoice = { probes: Number.MAX_SAFE_INTEGER, recall: 1, queries: 0 };

/**
 * Runs a generator of synchronous work in slices of about `stepMs`, each on its own turn of the
 * event loop: it yields before the first slice and after the last, so neither shares a turn with
 * the caller's synchronous work on either side (a 1M build's last k-means slice and the step that
 * saves its centroids had made one 60 ms slice). Undefined when aborted.
 */
export async function runSliced<T>(
  work: Generator<void, T>,
  stepMs: number,
  pacer: { start(): void; observe(kind: string, ms: number): void },
  signal: AbortSignal | undefined,
): Promise<T | undefined> {
  for (;;) {
    await yieldToEventLoop();
    if (signal?.aborted) return undefined;
    pacer.start();
    const t = performance.now();
    let step = work.next();
    while (!step.done && performance.now() - t < stepMs) step = work.next();
    pacer.observe('compute', performance.now() - t);
    if (step.done) {
      await yieldToEventLoop();
      return step.value;
    }
  }
}

/** Sample queries per kind for the recall estimate (four kinds). */
const QUERIES_PER_KIND = 16;
/** Training sample: this many vectors per list, within bounds. */
const SAMPLE_PER_LIST = 32;
const MIN_SAMPLE = 4096;
const MAX_SAMPLE = 65_536;

/**
 * What a new generation of the partition will be: exact when it is small enough, else ivf lists
 * trained on a random sample (read and trained in slices between event-loop turns) with the recall
 * estimate's sample queries. Undefined when the run was stopped; null when there was nothing to build.
 */
async function planBuild(
  store: Store,
  index: VectorIndex,
  partition: VectorPartition,
  options: VectorUpkeepOptions,
  pacer: Pacer,
  control: { signal?: AbortSignal | undefined; random?: RandomSource | undefined },
): Promise<{ layout: 'exact' | 'ivf'; centroids?: ListCentroids; queries?: EstimateQueries } | null | undefined> {
  if (partition.vectors <= options.exactMaxVectors) return { layout: 'exact' };
  const random = control.random ?? createSeededRandom(partition.vectors ^ partition.generation);
  const lists = listCountFor(partition.vectors);
  const wanted = Math.min(partition.vectors, Math.max(MIN_SAMPLE, Math.min(MAX_SAMPLE, lists * SAMPLE_PER_LIST)));
  const dims = index.dimensions;
  const range = store.read((sql) => partitionSeqRange(sql, partition.agentId, index.model));
  if (!range) {
    // The counter says vectors, the table has none (it drifted): correct it rather than rebuild.
    store.write((sql) => setPartitionVectors(sql, index.id, partition.agentId, 0, store.clock.now()));
    return null;
  }
  // Random seqs in the partition's range, each rounded up to the next stored vector: uniform
  // enough for training (gaps left by deleted vectors weigh the vector after them a little more).
  const seen = new Set<number>();
  const sample = new Float32Array(wanted * dims);
  const seqs: number[] = [];
  for (let attempts = 0; seqs.length < wanted && attempts < wanted * 4; ) {
    if (control.signal?.aborted) return undefined;
    pacer.start();
    const t = performance.now();
    let read = 0;
    store.read((sql) => {
      const slice = Math.min(pacer.size('sample'), wanted - seqs.length);
      const deadline = t + STEP_DEADLINE_FACTOR * options.stepMs;
      for (let i = 0; i < slice && (i === 0 || performance.now() < deadline); i++, attempts++) {
        const seq = range.low + Math.floor(random.float() * (range.high - range.low + 1));
        const row = partitionVectorAtOrAfter(sql, partition.agentId, index.model, seq);
        read++;
        if (!row || seen.has(row.seq)) continue;
        seen.add(row.seq);
        sample.set(blobToVector(row.vector).subarray(0, dims), seqs.length * dims);
        seqs.push(row.seq);
      }
    });
    pacer.record('sample', Math.max(1, read), performance.now() - t);
    await yieldToEventLoop();
  }
  const rows = sample.subarray(0, seqs.length * dims);
  const centroids = await runSliced(
    trainListCentroids(rows, dims, Math.min(lists, seqs.length), random),
    options.stepMs,
    pacer,
    control.signal,
  );
  if (!centroids) return undefined;
  return { layout: 'ivf', centroids, queries: makeEstimateQueries(rows, seqs, dims, QUERIES_PER_KIND, random) };
}
