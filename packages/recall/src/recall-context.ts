import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import type { MemoryFilters, PortableStore, Program, Store } from '@memory/store';
import type { AfterResponseWriter } from './after-response.js';
import type { ChannelContext } from './channels/context.js';
import type { ParsedQuery } from './query.js';
import type { Candidate } from './results.js';
import type { createRecallSchema, RecallRequest } from './schema.js';

/** What every recall of one engine shares: the store, the configuration, the providers and caches. */
export interface RecallContext {
  /** SQLite or PostgreSQL: every read is a program run on one snapshot. */
  readonly store: PortableStore;
  readonly config: MemoryConfig;
  /** Enables the semantic channel. */
  readonly embedder: EmbeddingProvider | undefined;
  /** Records access counts and telemetry after the response; without it, recall records nothing. */
  readonly after: AfterResponseWriter | undefined;
  readonly schema: ReturnType<typeof createRecallSchema>;
}

/** Milliseconds spent per stage of one recall. */
export interface StageTimes {
  lexical: number;
  hints: number;
  traversal: number;
  linked: number;
  embedWait: number;
  semantic: number;
  fusion: number;
  expand: number;
}

/** One recall in progress: the parsed request, the candidates found so far, warnings and timings. */
export interface RecallRun {
  readonly request: RecallRequest;
  /** The query tokenized once: every channel and stage reads this. */
  readonly query: ParsedQuery;
  readonly filters: MemoryFilters;
  readonly now: number;
  readonly limit: number;
  readonly candidates: Map<string, Candidate>;
  readonly warnings: string[];
  readonly times: StageTimes;
}

/** The candidate for a memory id, created on first sight. */
export function candidateFor(run: RecallRun, id: string): Candidate {
  let c = run.candidates.get(id);
  if (!c) {
    c = { id, evidence: {} };
    run.candidates.set(id, c);
  }
  return c;
}

/** Runs one stage; a failure becomes a warning and the fallback, never a failed recall. */
export function stage<T>(run: RecallRun, name: string, fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch (error) {
    run.warnings.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    return fallback;
  }
}

/**
 * {@link stage} for a program: a failure inside it (a statement, or the JavaScript between them)
 * becomes a warning and the fallback, and the rest of the read goes on. On PostgreSQL a failed
 * statement aborts the read's transaction, so the stages after it fail too (each with a warning).
 */
export function* stageProgram<T>(run: RecallRun, name: string, program: () => Program<T>, fallback: T): Program<T> {
  try {
    return yield* program();
  } catch (error) {
    run.warnings.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    return fallback;
  }
}

/** What the channels get inside one read. */
export function channelContext(ctx: RecallContext, run: RecallRun): ChannelContext {
  return {
    agentId: run.request.agentId,
    config: ctx.config,
    plan: run.query.plan,
    filters: run.filters,
    now: run.now,
    limit: run.limit,
  };
}

/**
 * The SQLite store behind a portable one, for the parts that exist on SQLite only (its vector
 * index, notes): a SQLite `PortableStore` is always a `Store` (what `openStore` returns).
 */
export function sqliteStoreOf(store: PortableStore): Store | undefined {
  return store.dialect === 'sqlite' ? (store as Store) : undefined;
}

/**
 * A read of its own run as a stage: a failure (a statement, or the transaction) becomes a warning
 * and the fallback.
 */
export async function readStage<T>(
  ctx: RecallContext,
  run: RecallRun,
  name: string,
  program: () => Program<T>,
  fallback: T,
): Promise<T> {
  try {
    return await ctx.store.db.read(() => stageProgram(run, name, program, fallback));
  } catch (error) {
    run.warnings.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
    return fallback;
  }
}
