import type { EmbeddingProvider, LlmProvider, MemoryConfig, RandomSource, Scheduler, Tracer } from '@memory/core';
import { MemoryError } from '@memory/core';
import type { Connectors, DocumentSearchHit, Documents, Imports, MemoryWriter, Transcripts } from '@memory/ingest';
import type { PortableQueue, Queue } from '@memory/queue';
import type { AfterResponseWriter, Recall } from '@memory/recall';
import type { Dialect, MemoryWriteDeps, PortableStore, Store, VectorSupport } from '@memory/store';
import type { Background } from './background.js';
import type { LoopTurns } from './loop-turns.js';

/** What every engine operation needs: the parts `openEngine` wired together, and whether it is closed. */
export interface EngineContext {
  readonly config: MemoryConfig;
  /** Which database the engine runs on. */
  readonly dialect: Dialect;
  /**
   * The store as code written for both dialects uses it: `ctx.portable.db.read(() => program)`.
   * Every part runs through it once it has a PostgreSQL form (issue 18).
   */
  readonly portable: PortableStore;
  /**
   * The SQLite store's synchronous API, for parts with no PostgreSQL form yet. On PostgreSQL a
   * stand-in: its calls throw `UNSUPPORTED` (clock, ids, logger, guard and `db` read through).
   */
  readonly store: Store;
  /** The queue's promise API, on either dialect (`enqueueProgram` inside a program's write). */
  readonly jobs: PortableQueue;
  /** The SQLite queue's synchronous API; on PostgreSQL a stand-in that throws `UNSUPPORTED`. */
  readonly queue: Queue;
  /** Whether vectors have an index (sqlite-vec, or pgvector on PostgreSQL), and why not. */
  readonly vector: VectorSupport;
  /** Closes the database (the SQLite file, or the PostgreSQL pool the engine owns). */
  readonly closeDatabase: () => Promise<void>;
  /** The memory writer every memory write goes through (with the engine's derived-work hook). */
  readonly writer: MemoryWriter;
  /** The store memory writer's dependencies, the same for every path (Dreaming's seam and passes too). */
  readonly memoryWrites: MemoryWriteDeps;
  /** The host's LLM, wrapped by the store's transaction guard; undefined without one. */
  readonly llm: LlmProvider | undefined;
  /** Whether new objects are queued for registry auto-linking (`registry.autoLinkOnCreate` and an LLM). */
  readonly autoLinkOn: boolean;
  /** The host's embedder, wrapped by the store's transaction guard; undefined without one (notes' vectors). */
  readonly embedder: EmbeddingProvider | undefined;
  /** What the host configured, for diagnostics (the embedder's model and dimensions). */
  readonly providers: {
    readonly llm: boolean;
    readonly embedder?:
      | {
          readonly model: string;
          readonly dimensions: number;
          /** The key its vectors are stored under (see `keyEmbedder`). */
          readonly vectorKey: string;
          readonly check?: (() => Promise<void>) | undefined;
        }
      | undefined;
  };
  readonly background: Background;
  /** The host's tracer; undefined means no spans at all. */
  readonly tracer: Tracer | undefined;
  readonly transcripts: Transcripts;
  readonly documents: Documents;
  /** Workspace search over document chunks. */
  readonly searchDocuments: (input: unknown) => Promise<DocumentSearchHit[]>;
  readonly connectors: Connectors;
  readonly imports: Imports;
  readonly recall: Recall;
  /** The recall Dreaming's `search_evidence` runs: the engine's embedder, no access counts or telemetry. */
  readonly evidenceRecall: Recall;
  readonly after: AfterResponseWriter;
  /** The engine's random source (token secrets); cryptographic unless the host injected one. */
  readonly random: RandomSource;
  /** The engine's scheduler (the steward's resolver time limits). */
  readonly scheduler: Scheduler;
  /** Lets the host's event loop turn between calls awaited back to back (see `createLoopTurns`). */
  readonly turns: LoopTurns;
  readonly state: { closed: boolean; closing?: Promise<void> };
}

/** `ENGINE_CLOSED` once `close()` has begun. */
export function assertOpen(ctx: EngineContext): void {
  if (ctx.state.closed) throw new MemoryError('ENGINE_CLOSED', 'the memory engine is closed');
}

/**
 * Every public call goes through here: a closed engine refuses, any synchronous throw becomes a
 * rejected promise, so callers see one error path, and calls awaited back to back let the host's
 * event loop turn every 10 ms of calls (`TURN_BUDGET_MS`, see `createLoopTurns`).
 */
export async function call<T>(ctx: EngineContext, fn: () => T | Promise<T>): Promise<T> {
  assertOpen(ctx);
  // A call accepted here runs even if `close()` begins meanwhile: close waits for this turn.
  const turn = ctx.turns.due();
  if (turn) await turn;
  return fn();
}

/**
 * Stops background work (in-flight jobs are aborted, waited for and released), flushes deferred
 * recall writes, then closes the store. Idempotent: every call returns the same promise.
 */
export function closeEngine(ctx: EngineContext): Promise<void> {
  ctx.state.closing ??= (async () => {
    ctx.state.closed = true;
    try {
      // Calls accepted before close that wait for a turn of the event loop start first.
      await ctx.turns.settled();
      await ctx.background.close();
      ctx.documents.close();
      // On PostgreSQL the deferred writes are a transaction to wait for before the pool ends.
      await ctx.after.flush();
    } finally {
      await ctx.closeDatabase();
    }
  })();
  return ctx.state.closing;
}
