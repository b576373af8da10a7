import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import { fillMissingVectors, type MemoryWriter } from '@memory/ingest';
import type { PortableQueue } from '@memory/queue';
import {
  memoriesWithoutVectorProgram,
  type PortableStore,
  runVectorUpkeep,
  type Store,
  type VectorUpkeepOptions,
  vectorUpkeepDue,
} from '@memory/store';
import type { Background, PeriodicTask } from './background.js';
import type { EngineContext } from './context.js';
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
 * a dedup key, so several processes sharing the database queue each at most once. The index job
 * is SQLite's vec0 upkeep, or on PostgreSQL with pgvector the HNSW index of a dimension once an
 * agent passes the exact limit.
 */
export function vectorUpkeepTask(deps: {
  ctx: Pick<EngineContext, 'dialect' | 'store' | 'portable' | 'vector'>;
  jobs: PortableQueue;
  config: MemoryConfig;
  embedder: EmbeddingProvider;
}): PeriodicTask {
  const { ctx, jobs, config, embedder } = deps;
  const options = vectorUpkeepOptions(config);
  return {
    name: 'vector upkeep check',
    intervalMs: config.vectors.upkeepIntervalMs,
    run: async () => {
      if (ctx.vector.available && (await indexUpkeepDue(ctx, options)))
        await jobs.enqueue({ jobType: VECTOR_INDEX_JOB, dedupKey: 'vector-index' });
      const missing = await ctx.portable.db.read(function* () {
        const scope = yield* reembedScope(config, embedder.model);
        return yield* memoriesWithoutVectorProgram(embedder.model, 1, config.vectors.fillMaxAttempts, scope);
      });
      if (missing.length > 0) await jobs.enqueue({ jobType: FILL_VECTORS_JOB, dedupKey: `fill:${embedder.model}` });
    },
  };
}

async function indexUpkeepDue(
  ctx: Pick<EngineContext, 'dialect' | 'store' | 'portable'>,
  options: VectorUpkeepOptions,
): Promise<boolean> {
  if (ctx.dialect === 'sqlite') return ctx.store.read((sql) => vectorUpkeepDue(sql, options));
  const { postgresVectorIndexesDueProgram } = await import('@memory/store/postgres');
  return (await ctx.portable.db.read(() => postgresVectorIndexesDueProgram(options.exactMaxVectors))).length > 0;
}

/**
 * PostgreSQL's index job: an HNSW index for each dimension an agent's vectors need one for (built
 * concurrently: writes go on meanwhile).
 */
async function runPostgresIndexUpkeep(store: PortableStore, exactMaxVectors: number): Promise<{ indexed: number[] }> {
  const { postgresVectorIndexesDueProgram } = await import('@memory/store/postgres');
  const due = await store.db.read(() => postgresVectorIndexesDueProgram(exactMaxVectors));
  const builder = store as PortableStore & { createVectorIndex?: (dimensions: number) => Promise<void> };
  for (const dimensions of due) await builder.createVectorIndex?.(dimensions);
  return { indexed: due };
}

/**
 * The workers of the two vector jobs (one job at a time each; steps yield to the event loop); the
 * index worker only when vectors have an index (sqlite-vec, or pgvector).
 */
export function registerVectorWorkers(deps: {
  ctx: Pick<EngineContext, 'dialect' | 'store' | 'portable' | 'vector'>;
  config: MemoryConfig;
  writer: MemoryWriter;
  background: Background;
}): void {
  const { ctx, config, writer, background } = deps;
  const options = vectorUpkeepOptions(config);
  if (ctx.vector.available)
    background.register(
      {
        jobTypes: [VECTOR_INDEX_JOB],
        handler: (_job, context) =>
          ctx.dialect === 'sqlite'
            ? runVectorUpkeep(ctx.store as Store, options, { signal: context.signal, budgetMs: runBudget(config) })
            : runPostgresIndexUpkeep(ctx.portable, options.exactMaxVectors),
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
        const scope = await ctx.portable.db.read(() => reembedScope(config, key));
        const report = await fillMissingVectors(writer, {
          batchSize: config.vectors.fillBatchSize,
          maxAttempts: config.vectors.fillMaxAttempts,
          otherKeys: scope,
          signal: context.signal,
          budgetMs: runBudget(config),
        });
        if (report.finished) {
          const now = ctx.portable.clock.now();
          await ctx.portable.db.write(() => settleReembed(key, scope, now));
        }
        return report;
      },
      name: 'vector-fill',
    },
    true,
  );
}
