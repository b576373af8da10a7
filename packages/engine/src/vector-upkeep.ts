import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import { fillMissingVectors, type MemoryWriter } from '@memory/ingest';
import type { Queue } from '@memory/queue';
import {
  memoriesWithoutVector,
  runVectorUpkeep,
  type Store,
  type VectorUpkeepOptions,
  vectorUpkeepDue,
} from '@memory/store';
import type { Background, PeriodicTask } from './background.js';
import { reembedScope, settleReembed } from './embedding-migration.js';

/** The vector index's upkeep: fills, partition rebuilds (exact ↔ ivf) and drains. */
export const VECTOR_INDEX_JOB = 'vector_index';
/**
 * Embeds live memories that have no vector of the current embedder: written during an outage, or
 * (the embedding migration) under an earlier embedder.
 */
export const FILL_VECTORS_JOB = 'embedding_migration';

// A synchronous step of index upkeep aims at this long; the event loop runs between steps.
const UPKEEP_STEP_MS = 10;
// Fresh (unassigned) vectors of an ivf partition that start a drain into its lists.
const DRAIN_AFTER = 1024;

/** The store's upkeep options from the engine's configuration. */
export function vectorUpkeepOptions(config: MemoryConfig): VectorUpkeepOptions {
  return {
    exactMaxVectors: config.vectors.exactMaxVectors,
    targetRecall: config.vectors.targetRecall,
    minProbeShare: config.vectors.minProbeShare,
    drainAfter: DRAIN_AFTER,
    stepMs: UPKEEP_STEP_MS,
  };
}

/** One run of a job handler: half the job deadline, at most a minute; the next check queues the rest. */
function runBudget(config: MemoryConfig): number {
  return Math.min(60_000, config.queue.jobDeadlineMs / 2);
}

/**
 * The periodic check (cheap reads) that queues the two vector jobs when they have work. Jobs carry
 * a dedup key, so several processes sharing the file queue each at most once.
 */
export function vectorUpkeepTask(deps: {
  store: Store;
  queue: Queue;
  config: MemoryConfig;
  embedder: EmbeddingProvider;
}): PeriodicTask {
  const { store, queue, config, embedder } = deps;
  const options = vectorUpkeepOptions(config);
  return {
    name: 'vector upkeep check',
    intervalMs: config.vectors.upkeepIntervalMs,
    run: () => {
      if (store.vector.available && store.read((sql) => vectorUpkeepDue(sql, options)))
        queue.enqueue({ jobType: VECTOR_INDEX_JOB, dedupKey: 'vector-index' });
      if (
        embedder &&
        store.read(
          (sql) =>
            memoriesWithoutVector(
              sql,
              embedder.model,
              1,
              config.vectors.fillMaxAttempts,
              reembedScope(sql, config, embedder.model),
            ).length > 0,
        )
      )
        queue.enqueue({ jobType: FILL_VECTORS_JOB, dedupKey: `fill:${embedder.model}` });
    },
  };
}

/**
 * The workers of the two vector jobs (one job at a time each; steps yield to the event loop); the
 * index worker only when sqlite-vec is loaded.
 */
export function registerVectorWorkers(deps: {
  store: Store;
  config: MemoryConfig;
  writer: MemoryWriter;
  background: Background;
}): void {
  const { store, config, writer, background } = deps;
  const options = vectorUpkeepOptions(config);
  if (store.vector.available)
    background.register(
      {
        jobTypes: [VECTOR_INDEX_JOB],
        handler: (_job, context) =>
          runVectorUpkeep(store, options, { signal: context.signal, budgetMs: runBudget(config) }),
        name: 'vector-index',
      },
      true,
    );
  background.register(
    {
      jobTypes: [FILL_VECTORS_JOB],
      handler: async (_job, context) => {
        const key = writer.embedder?.model;
        if (key === undefined) return;
        // Read at each run: a host's re-embed request (manual mode) widens what the run covers.
        const scope = store.read((sql) => reembedScope(sql, config, key));
        const report = await fillMissingVectors(writer, {
          batchSize: config.vectors.fillBatchSize,
          maxAttempts: config.vectors.fillMaxAttempts,
          otherKeys: scope,
          signal: context.signal,
          budgetMs: runBudget(config),
        });
        if (report.finished) store.write((sql) => settleReembed(sql, key, scope, store.clock.now()));
        return report;
      },
      name: 'vector-fill',
    },
    true,
  );
}
