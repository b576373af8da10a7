import { performance } from 'node:perf_hooks';
import { type EmbeddingProvider, type MemoryConfig, parseInput } from '@memory/core';
import type { PortableStore } from '@memory/store';
import type { AfterResponseWriter } from './after-response.js';
import type { SemanticOutcome } from './channels/semantic.js';
import { withDocumentSources } from './document-sources.js';
import { buildDrillDown } from './drill-down.js';
import { expandSessions } from './expand.js';
import { completeCandidates, gatherFlatChannels, gatherSemantic } from './gather.js';
import { type RankedNote, rankNotes } from './notes.js';
import { scorePassages } from './passages.js';
import { parseQuery } from './query.js';
import { rankCandidates } from './rank.js';
import type { RecallContext, RecallRun } from './recall-context.js';
import { readStage } from './recall-context.js';
import { filtersOf, queryVector, windowDaysOf } from './request.js';
import { createRecallSchema } from './schema.js';
import type { RecallItem, RecallResponse, RecallResult, RecallResultsOf } from './types.js';
import { windowWarning } from './window.js';

export interface RecallDeps {
  /** A SQLite `Store` or a `PostgresStore`: recall gives the same results on both for the same data. */
  readonly store: PortableStore;
  readonly config: MemoryConfig;
  /** Enables the semantic channel (already wrapped by the store's transaction guard). */
  readonly embedder?: EmbeddingProvider | undefined;
  /**
   * Records access counts and opt-in telemetry after each response. Without it recall writes
   * nothing (for internal readers such as Dreaming's evidence search, which are not host use).
   */
  readonly after?: AfterResponseWriter | undefined;
}

/**
 * Hybrid recall within one agent's scope: lexical, semantic, hint, traversal and linked channels,
 * each scoped before content is read, bounded and non-fatal; fused, dampened, tiered.
 */
export function createRecall(deps: RecallDeps) {
  const ctx: RecallContext = {
    store: deps.store,
    config: deps.config,
    embedder: deps.embedder,
    after: deps.after,
    schema: createRecallSchema(deps.config),
  };
  return ((input: unknown) => recall(ctx, input)) as Recall;
}

/**
 * A recall function. Without `include` its results are memories; with `include: ['notes']` (or
 * both kinds) they are {@link RecallItem}s, each saying its `kind`.
 */
export type Recall = <I>(input: I) => Promise<RecallResponse<RecallResultsOf<I>>>;

/** One recall: the flat channels while the query embeds, then semantic, candidate facts, ranking, expansion. */
async function recall(ctx: RecallContext, input: unknown): Promise<RecallResponse<RecallItem>> {
  const { store, config, embedder } = ctx;
  const started = performance.now();
  const request = parseInput(ctx.schema, input, 'recall');
  const include = request.include ?? ['memories'];
  const warnings: string[] = [];
  // Started first, awaited last: the other channels run while the embedder works.
  const vectorPromise =
    embedder && config.recall.channels.semantic
      ? queryVector(embedder, request.query, warnings)
      : Promise.resolve(undefined);
  const clockNow = store.clock.now();
  const now = request.now ?? clockNow;
  const windowDays = windowDaysOf(request, config);
  const run: RecallRun = {
    request,
    query: parseQuery(request.query, config.recall),
    filters: filtersOf(request, config, now),
    now,
    limit: request.limit ?? config.recall.defaultLimit,
    candidates: new Map(),
    warnings,
    times: { lexical: 0, hints: 0, traversal: 0, linked: 0, embedWait: 0, semantic: 0, fusion: 0, expand: 0 },
  };
  const { times } = run;

  const memories = include.includes('memories');
  // Without memories asked for, their channels do not run at all. One read (one snapshot); on
  // SQLite it runs before the query's embedding is awaited, on PostgreSQL while it is computed.
  const focal = memories ? await store.db.read(() => gatherFlatChannels(ctx, run)) : [];

  let mark = performance.now();
  const vector = await vectorPromise;
  times.embedWait = performance.now() - mark;

  mark = performance.now();
  const semantic: SemanticOutcome = memories
    ? await gatherSemantic(ctx, run, vector)
    : { hits: [], completeness: 'none' };
  times.semantic = performance.now() - mark;
  mark = performance.now();
  const facts = memories
    ? await store.db.read(() => completeCandidates(ctx, run, vector))
    : { entitiesOf: new Map(), hubThreshold: undefined, superseded: new Set<string>(), outsideWindow: 0 };
  if (memories && vector) await scorePassages(ctx, run, vector);
  const ranked = memories ? rankCandidates(ctx, run, focal, facts, vector !== undefined) : [];
  const memoryResults = memories
    ? await readStage(ctx, run, 'documents', () => withDocumentSources(request.agentId, ranked), ranked)
    : [];
  const results = include.includes('notes') ? await withNotes(ctx, run, memoryResults, vector) : memoryResults;
  times.fusion = performance.now() - mark;
  const since = run.filters.windowStart;
  if (facts.outsideWindow > 0 && since !== undefined)
    warnings.push(windowWarning(facts.outsideWindow, windowDays, since));

  mark = performance.now();
  const expansions = request.expand
    ? await readStage(
        ctx,
        run,
        'expand',
        () => expandSessions(request.agentId, memoryResults, run.query.plan.tokens, config.recall.expand),
        [],
      )
    : undefined;
  times.expand = performance.now() - mark;

  const totalMs = performance.now() - started;
  recordAfter(ctx, run, memoryResults, semantic, totalMs, clockNow);
  const plan = run.query.plan;
  return {
    results,
    query: plan,
    vectorCompleteness: semantic.completeness,
    ...(semantic.searchedWindow !== undefined ? { searchedWindow: semantic.searchedWindow } : {}),
    ...(semantic.estimatedRecall !== undefined ? { vectorRecall: semantic.estimatedRecall } : {}),
    ...(request.explain && semantic.search ? { vectorSearch: semantic.search } : {}),
    ...(semantic.coverage ? { vectorCoverage: semantic.coverage } : {}),
    window: { since: since ?? null, days: since === undefined ? null : windowDays, now, excluded: facts.outsideWindow },
    drillDown: buildDrillDown(memoryResults, plan, request.expand === true, facts.outsideWindow),
    ...(expansions ? { expansions } : {}),
    warnings,
    timings: {
      totalMs,
      lexicalMs: times.lexical,
      hintsMs: times.hints,
      traversalMs: times.traversal,
      linkedMs: times.linked,
      embedWaitMs: times.embedWait,
      semanticMs: times.semantic,
      fusionMs: times.fusion,
      expandMs: times.expand,
    },
  };
}

/**
 * Memories and notes in one list: each side is already its own top `limit` by final score, so the
 * top `limit` of both merged by score is the top of the union. Ties keep memories first.
 */
async function withNotes(
  ctx: RecallContext,
  run: RecallRun,
  memories: readonly RecallResult[],
  vector: Float32Array | undefined,
): Promise<RecallItem[]> {
  let notes: RankedNote[];
  try {
    notes = await rankNotes(ctx, run, vector);
  } catch (error) {
    run.warnings.push(`notes: ${error instanceof Error ? error.message : String(error)}`);
    notes = [];
  }
  const merged: RecallItem[] = [];
  let m = 0;
  let n = 0;
  while (merged.length < run.limit && (m < memories.length || n < notes.length)) {
    const memory = memories[m];
    const note = notes[n];
    if (memory && (!note || memory.score >= note.result.score)) {
      merged.push(memory);
      m++;
    } else if (note) {
      merged.push(note.result);
      n++;
    }
  }
  return merged;
}

/** Access counts (and opt-in telemetry) for the results, written after the response. */
function recordAfter(
  ctx: RecallContext,
  run: RecallRun,
  results: readonly RecallResult[],
  semantic: SemanticOutcome,
  totalMs: number,
  at: number,
): void {
  const { after, config } = ctx;
  if (!after) return;
  const { request, times } = run;
  after.recordAccess(
    request.agentId,
    results.map((r) => r.id),
  );
  if (!config.telemetry.recallQa) return;
  after.recordTelemetry({
    agentId: request.agentId,
    query: request.query,
    resultCount: results.length,
    topScore: results[0]?.score ?? null,
    channels: {
      lexicalMs: times.lexical,
      semanticMs: times.semantic,
      hintsMs: times.hints,
      traversalMs: times.traversal,
    },
    vectorCompleteness: semantic.completeness,
    totalMs,
    createdAt: at,
  });
}
