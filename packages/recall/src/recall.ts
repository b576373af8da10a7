import { performance } from 'node:perf_hooks';
import { type EmbeddingProvider, type MemoryConfig, parseInput } from '@memory/core';
import {
  claimCurrentness,
  type EntityMatch,
  entitiesOfMemories,
  entityDegreePercentile,
  findLinkedMemories,
  memoryVectors,
  readMemoryCandidates,
  resolveLinkLabels,
  type Store,
} from '@memory/store';
import type { AfterResponseWriter } from './after-response.js';
import { type ChannelContext, cosineWithBlob } from './channels/context.js';
import { hintsChannel } from './channels/hints.js';
import { lexicalChannel } from './channels/lexical.js';
import { createShareCache } from './channels/scope-share.js';
import { type SemanticOutcome, semanticChannel } from './channels/semantic.js';
import { entityNameCandidates, resolveFocalEntities, traversalChannel } from './channels/traversal.js';
import { buildDrillDown } from './drill-down.js';
import { expandSessions } from './expand.js';
import { planLexicalQuery } from './query.js';
import { filtersOf, queryVector } from './request.js';
import { type Candidate, type ScoredCandidate, toResult } from './results.js';
import { createRecallSchema } from './schema.js';
import { clamp01, dampen, fuseScore } from './shaping.js';
import type { RecallResponse, RecallResult } from './types.js';

export interface RecallDeps {
  readonly store: Store;
  readonly config: MemoryConfig;
  /** Enables the semantic channel (already wrapped by the store's transaction guard). */
  readonly embedder?: EmbeddingProvider | undefined;
  readonly after: AfterResponseWriter;
}

/** Host references a query may name by label. */
const MAX_NAMED_REFS = 16;

/**
 * Hybrid recall within one agent's scope: lexical, semantic, hint, traversal and linked channels,
 * each scoped before content is read, bounded and non-fatal; fused, dampened, tiered.
 */
export function createRecall(deps: RecallDeps) {
  const { store, config, embedder, after } = deps;
  const schema = createRecallSchema(config);
  const shares = createShareCache();

  return async function recall(input: unknown): Promise<RecallResponse> {
    const started = performance.now();
    const request = parseInput(schema, input, 'recall');
    const warnings: string[] = [];
    // Started first, awaited last: the other channels run while the embedder works.
    const channels = config.recall.channels;
    const vectorPromise =
      embedder && channels.semantic ? queryVector(embedder, request.query, warnings) : Promise.resolve(undefined);
    const now = store.clock.now();
    const limit = request.limit ?? config.recall.defaultLimit;
    const plan = planLexicalQuery(request.query, config.recall);
    const filters = filtersOf(request, config, now);
    // Candidates per flat channel: five per result asked for, at least 50, at most the configured caps.
    const lexicalPool = Math.min(config.recall.lexicalCandidates, Math.max(50, limit * 5));
    const semanticPool = Math.min(config.recall.semanticCandidates, Math.max(50, limit * 5));
    const candidates = new Map<string, Candidate>();
    const candidate = (id: string): Candidate => {
      let c = candidates.get(id);
      if (!c) {
        c = { id, evidence: {} };
        candidates.set(id, c);
      }
      return c;
    };
    const stage = <T>(name: string, fn: () => T, fallback: T): T => {
      try {
        return fn();
      } catch (error) {
        warnings.push(`${name}: ${error instanceof Error ? error.message : String(error)}`);
        return fallback;
      }
    };
    const t = { lexical: 0, hints: 0, traversal: 0, linked: 0, embedWait: 0, semantic: 0, fusion: 0, expand: 0 };
    let focal: EntityMatch[] = [];

    store.read((sql) => {
      const scopedLexical = shares.scoped(sql, request.agentId, now);
      const ctx: ChannelContext = { sql, agentId: request.agentId, config, plan, filters, now, limit, scopedLexical };
      let mark = performance.now();
      const lexical = channels.lexical ? stage('lexical', () => lexicalChannel(ctx, lexicalPool), []) : [];
      const bestLexical = Math.max(0, ...lexical.map((h) => -h.bm25));
      lexical.forEach((hit, i) => {
        const c = candidate(hit.id);
        c.row = hit;
        c.evidence.lexical = bestLexical > 0 ? clamp01(-hit.bm25 / bestLexical) : 0;
        c.evidence.ranks = { ...c.evidence.ranks, lexical: i + 1 };
        c.evidence.anchored = true;
      });
      t.lexical = performance.now() - mark;

      mark = performance.now();
      const hints = channels.hints ? stage('hints', () => hintsChannel(ctx), []) : [];
      const bestHint = Math.max(0, ...hints.map((h) => -h.bm25));
      hints.forEach((hit, i) => {
        const c = candidate(hit.memoryId);
        c.evidence.hint = bestHint > 0 ? clamp01(-hit.bm25 / bestHint) : 0;
        c.evidence.ranks = { ...c.evidence.ranks, hint: i + 1 };
      });
      t.hints = performance.now() - mark;

      mark = performance.now();
      focal = stage('traversal', () => resolveFocalEntities(ctx, request.query), []);
      if (config.traversal.enabled && focal.length > 0) {
        const budget = Math.floor(config.traversal.candidateBudget * (1 - config.traversal.flatReserve));
        const outcome = stage('traversal', () => traversalChannel(ctx, focal, budget, request.asOf ?? now), undefined);
        for (const [memoryId, path] of outcome?.memories ?? []) candidate(memoryId).path = path;
        if (outcome?.truncated)
          warnings.push('traversal: stopped at a bound (entities, claims or time); results are partial');
      }
      t.traversal = performance.now() - mark;

      mark = performance.now();
      // Host references passed in, plus those the query names by their label (read-only).
      const named = stage(
        'linked',
        () => resolveLinkLabels(sql, request.agentId, entityNameCandidates(request.query), MAX_NAMED_REFS),
        [],
      );
      const refs = [...(request.linkedEntities ?? []), ...named];
      if (refs.length > 0) {
        for (const link of stage(
          'linked',
          () => findLinkedMemories(sql, request.agentId, refs, config.recall.linkedCandidates),
          [],
        )) {
          const c = candidate(link.memoryId);
          c.evidence.linked = 1;
          c.linkedBy ??= [];
          if (!c.linkedBy.some((l) => l.type === link.refType && l.refId === link.refId))
            c.linkedBy.push({ type: link.refType, refId: link.refId });
        }
      }
      t.linked = performance.now() - mark;
    });

    let mark = performance.now();
    const vector = await vectorPromise;
    t.embedWait = performance.now() - mark;

    let semantic: SemanticOutcome = { hits: [], completeness: 'none' };
    let hubThreshold: number | undefined;
    const entitiesOf = new Map<string, Array<{ id: string; name: string; degree: number }>>();
    const superseded = new Set<string>();
    store.read((sql) => {
      const ctx: ChannelContext = {
        sql,
        agentId: request.agentId,
        config,
        plan,
        filters,
        now,
        limit,
        scopedLexical: true,
      };
      mark = performance.now();
      if (vector && embedder) {
        semantic = stage(
          'semantic',
          () => semanticChannel(ctx, vector, embedder.model, store.vector.available, semanticPool),
          semantic,
        );
        semantic.hits.forEach((hit, i) => {
          const c = candidate(hit.memoryId);
          c.evidence.semantic = clamp01(hit.cosine);
          c.evidence.ranks = { ...c.evidence.ranks, semantic: i + 1 };
          c.evidence.anchored = true;
        });
      }
      t.semantic = performance.now() - mark;

      mark = performance.now();
      // Rows for candidates other channels found: scope and filters applied here, so anything that
      // does not pass (another agent's id, a deleted memory, a filter) is dropped.
      const missing = [...candidates.values()].filter((c) => !c.row).map((c) => c.id);
      const rows = stage('candidates', () => readMemoryCandidates(sql, request.agentId, missing, filters, now), []);
      for (const row of rows) {
        const c = candidates.get(row.id);
        if (c) c.row = row;
      }
      for (const [id, c] of candidates) if (!c.row) candidates.delete(id);
      if (vector && embedder) {
        const unscored = [...candidates.values()].filter((c) => c.evidence.semantic === undefined).map((c) => c.id);
        for (const v of stage('semantic', () => memoryVectors(sql, request.agentId, embedder.model, unscored), [])) {
          const c = candidates.get(v.memoryId);
          if (c) c.evidence.semantic = clamp01(cosineWithBlob(vector, v.vector));
        }
      }
      const ids = [...candidates.keys()];
      for (const e of stage('entities', () => entitiesOfMemories(sql, request.agentId, ids), [])) {
        const list = entitiesOf.get(e.memoryId) ?? [];
        list.push({ id: e.entityId, name: e.name, degree: e.degree });
        entitiesOf.set(e.memoryId, list);
      }
      if (entitiesOf.size > 0 && config.recall.dampening.hub) {
        hubThreshold = stage(
          'hub',
          () => entityDegreePercentile(sql, request.agentId, config.recall.dampening.hubPercentile),
          undefined,
        );
      }
      for (const c of stage('currentness', () => claimCurrentness(sql, request.agentId, ids), [])) {
        if (c.active === 0 && c.superseded > 0) superseded.add(c.memoryId);
      }
    });

    const focalIds = new Set(focal.map((e) => e.entityId));
    const semanticRan = vector !== undefined;
    const scored: ScoredCandidate[] = [];
    for (const c of candidates.values()) {
      const row = c.row;
      if (!row) continue;
      if (c.path) c.evidence.traversal = clamp01(0.7 * (c.evidence.semantic ?? 0) + 0.3 * row.importance);
      const fused = fuseScore(c.evidence, { recall: config.recall, traversal: config.traversal, semanticRan });
      let base = fused;
      const extra: { graphBoost?: number } = {};
      if (
        !config.traversal.enabled &&
        focalIds.size > 0 &&
        (entitiesOf.get(c.id) ?? []).some((e) => focalIds.has(e.id))
      ) {
        base = clamp01(base + config.traversal.graphBoost);
        extra.graphBoost = config.traversal.graphBoost;
      }
      const { score, raw, adjustments } = dampen(
        base,
        {
          content: row.content,
          type: row.type,
          createdAt: row.created_at,
          semantic: c.evidence.semantic,
          entityDegrees: (entitiesOf.get(c.id) ?? []).map((e) => e.degree),
          superseded: superseded.has(c.id),
        },
        { queryTokens: plan.tokens, hubThreshold, now },
        config.recall,
      );
      // The floor applies to relevance (the fused score), so boosts cannot lift an unrelated memory over it.
      const structural = c.evidence.linked !== undefined || c.path !== undefined;
      if (fused < config.recall.minScore && !structural) continue;
      scored.push({ c, score, raw, fused, adjustments: { ...adjustments, ...extra } });
    }
    scored.sort((a, b) => b.raw - a.raw || (a.c.id < b.c.id ? -1 : 1));
    const top = scored.slice(0, limit);
    const results: RecallResult[] = top.map((scoredCandidate) =>
      toResult(scoredCandidate, entitiesOf.get(scoredCandidate.c.id), request.explain === true),
    );
    t.fusion = performance.now() - mark;

    mark = performance.now();
    const expansions = request.expand
      ? stage(
          'expand',
          () => store.read((sql) => expandSessions(sql, request.agentId, results, plan.tokens, config.recall.expand)),
          [],
        )
      : undefined;
    t.expand = performance.now() - mark;

    const totalMs = performance.now() - started;
    after.recordAccess(
      request.agentId,
      results.map((r) => r.id),
    );
    if (config.telemetry.recallQa) {
      after.recordTelemetry({
        agentId: request.agentId,
        query: request.query,
        resultCount: results.length,
        topScore: results[0]?.score ?? null,
        channels: { lexicalMs: t.lexical, semanticMs: t.semantic, hintsMs: t.hints, traversalMs: t.traversal },
        vectorCompleteness: semantic.completeness,
        totalMs,
        createdAt: now,
      });
    }
    return {
      results,
      query: plan,
      vectorCompleteness: semantic.completeness,
      ...(semantic.searchedWindow !== undefined ? { searchedWindow: semantic.searchedWindow } : {}),
      window: { since: filters.windowStart ?? null },
      drillDown: buildDrillDown(results, plan, request.expand === true),
      ...(expansions ? { expansions } : {}),
      warnings,
      timings: {
        totalMs,
        lexicalMs: t.lexical,
        hintsMs: t.hints,
        traversalMs: t.traversal,
        linkedMs: t.linked,
        embedWaitMs: t.embedWait,
        semanticMs: t.semantic,
        fusionMs: t.fusion,
        expandMs: t.expand,
      },
    };
  };
}

export type Recall = ReturnType<typeof createRecall>;
