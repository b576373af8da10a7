import type { EntityMatch, MemoryCandidateRow } from '@memory/store';
import type { CandidateFacts } from './gather.js';
import type { RecallContext, RecallRun } from './recall-context.js';
import { type ScoredCandidate, toResult } from './results.js';
import { clamp01, dampen, fuseScore } from './shaping.js';
import type { RecallResult } from './types.js';

/**
 * Fuses each candidate's channel evidence, applies the graph boost (when traversal is off) and the
 * dampening, drops what falls under the relevance floor, and returns the top `limit` in order.
 */
export function rankCandidates(
  ctx: RecallContext,
  run: RecallRun,
  focal: readonly EntityMatch[],
  facts: CandidateFacts,
  semanticRan: boolean,
): RecallResult[] {
  const { config } = ctx;
  const { entitiesOf, hubThreshold, superseded } = facts;
  const focalIds = new Set(focal.map((e) => e.entityId));
  const scored: ScoredCandidate[] = [];
  for (const c of run.candidates.values()) {
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
      { queryTokens: run.query.plan.tokens, hubThreshold, now: run.now },
      config.recall,
    );
    // The floor applies to relevance (the fused score), so boosts cannot lift an unrelated memory over it.
    const structural = c.evidence.linked !== undefined || c.path !== undefined;
    if (fused < config.recall.minScore && !structural) continue;
    scored.push({ c, score, raw, fused, adjustments: { ...adjustments, ...extra } });
  }
  scored.sort(stableOrder);
  return scored.slice(0, run.limit).map((s) => toResult(s, entitiesOf.get(s.c.id), run.request.explain === true));
}

/**
 * Score, then the newer memory, then the content hash: never the id, which is random per write,
 * so the same data gives the same list in every run and every store.
 */
export function stableOrder(a: ScoredCandidate, b: ScoredCandidate): number {
  const ra = a.c.row as MemoryCandidateRow;
  const rb = b.c.row as MemoryCandidateRow;
  if (b.raw !== a.raw) return b.raw - a.raw;
  if (rb.created_at !== ra.created_at) return rb.created_at - ra.created_at;
  if (ra.content_hash !== rb.content_hash) return ra.content_hash < rb.content_hash ? -1 : 1;
  return a.c.id < b.c.id ? -1 : a.c.id > b.c.id ? 1 : 0;
}
