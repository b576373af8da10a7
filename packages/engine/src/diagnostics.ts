import type { JobTypeHealth, WorkerStatus } from '@memory/queue';
import { countMemoriesWithoutVector, type MaintenanceState, type VectorSupport } from '@memory/store';
import type { EngineContext } from './context.js';
import { type EmbeddingStatus, embeddingStatus } from './embedding-migration.js';
import { maintenanceStatus, purgeDueCount } from './maintenance.js';

/** What the engine can do right now, and why not where it cannot. */
export interface EngineDiagnostics {
  /** Whether `start()` has run (background workers polling). */
  readonly started: boolean;
  /** Queue health per job type. */
  readonly queue: readonly JobTypeHealth[];
  readonly workers: readonly WorkerStatus[];
  /**
   * Lifecycle maintenance: each task's saved cursor and its last run (`purge:run`, `reap:run`:
   * time and report), plus what a run would do now.
   */
  readonly maintenance: {
    readonly tasks: readonly MaintenanceState[];
    readonly purgeDue: number;
    /**
     * With an embedder: live memories (every scope) still without a vector of its model — written
     * during an outage, imported, or embedded by an earlier model. The `embedding_migration` job
     * fills them in the background; this is its progress.
     */
    readonly vectorsMissing?: number;
    /**
     * With an embedder: the embedding migration — the embedder's identity and vector key, the last
     * change of embedder the file saw, live memories (every scope) on this embedder of all, and
     * the scopes a host asked to re-embed.
     */
    readonly embedding?: EmbeddingStatus;
  };
  readonly providers: {
    readonly llm: { readonly available: boolean; readonly reason?: string };
    readonly embedder: {
      readonly available: boolean;
      readonly model?: string;
      readonly dimensions?: number;
      readonly reason?: string;
    };
    readonly vector: VectorSupport;
  };
}

/**
 * An embedder's availability: configured, and, when it can say so (`check()`, e.g. the offline
 * embedder loading its vectors file), able to work here. A bundled app whose vectors file was left
 * behind is reported unavailable with the reason, not `available: true`.
 */
async function embedderStatus(embedder: NonNullable<EngineContext['providers']['embedder']>) {
  const described = { model: embedder.model, dimensions: embedder.dimensions };
  try {
    await embedder.check?.();
    return { available: true, ...described };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { available: false, ...described, reason: `the embedder cannot work here: ${reason}` };
  }
}

/** Queue health per job type, worker states and provider availability (with why not). */
export async function diagnostics(ctx: EngineContext): Promise<EngineDiagnostics> {
  const { embedder } = ctx.providers;
  return {
    started: ctx.background.started,
    queue: await ctx.jobs.health(),
    workers: ctx.background.workerStatus(),
    maintenance: maintenanceDiagnostics(ctx),
    providers: {
      llm: ctx.providers.llm
        ? { available: true }
        : { available: false, reason: 'no llm provider configured; LLM workers stay idle' },
      embedder: embedder
        ? await embedderStatus(embedder)
        : {
            available: false,
            reason:
              'no embedder configured; recall runs without its semantic channel (lexical, hints, graph and links only)',
          },
      vector: ctx.vector,
    },
  };
}

function maintenanceDiagnostics(ctx: EngineContext): EngineDiagnostics['maintenance'] {
  const key = ctx.providers.embedder?.vectorKey;
  const embedding = embeddingStatus(ctx);
  return {
    tasks: maintenanceStatus(ctx.store),
    purgeDue: purgeDueCount(ctx),
    ...(key === undefined ? {} : { vectorsMissing: ctx.store.read((sql) => countMemoriesWithoutVector(sql, key)) }),
    ...(embedding ? { embedding } : {}),
  };
}
