import { performance } from 'node:perf_hooks';
import {
  activeClaimsForEntitiesProgram,
  canonicalEntityName,
  dependencyNeighborsProgram,
  type EntityMatch,
  matchEntitiesByNameProgram,
  memoriesMentioningProgram,
  type Program,
} from '@memory/store';
import type { ChannelContext } from './context.js';

/** How a memory was reached through the graph. */
export interface TraversalPath {
  readonly entityId: string;
  readonly hops: number;
  /** The claim that cites the memory, when reached through one. */
  readonly claimId?: string;
}

export interface TraversalOutcome {
  readonly focal: readonly EntityMatch[];
  readonly memories: ReadonlyMap<string, TraversalPath>;
  readonly entitiesVisited: number;
  /** True when a bound (entities, claims, time) stopped the walk early. */
  readonly truncated: boolean;
}

/** Candidate entity names in a query's words ({@link ParsedQuery}): every run of 1–3 consecutive words, canonicalized. */
export function entityNameCandidates(words: readonly string[], maxWords = 3): string[] {
  const names = new Set<string>();
  for (let i = 0; i < words.length && names.size < 200; i++) {
    for (let n = 1; n <= maxWords && i + n <= words.length; n++)
      names.add(canonicalEntityName(words.slice(i, i + n).join(' ')));
  }
  return [...names];
}

/** Focal entities named among the candidate names (names and aliases, active, in scope). Read-only: never creates. */
export function resolveFocalEntities(ctx: ChannelContext, names: readonly string[]): Program<EntityMatch[]> {
  return matchEntitiesByNameProgram(ctx.agentId, names);
}

/**
 * Focal entities → dependency hops (strongest `maxBranching` links per entity, up to `maxHops`,
 * at most `maxEntities` in all) → active claims on active aspects → the memories they cite, and
 * memories that mention the focal entities. Bounded by `budget` memories and the time budget.
 */
export function* traversalChannel(
  ctx: ChannelContext,
  focal: readonly EntityMatch[],
  budget: number,
  asOf: number | undefined,
): Program<TraversalOutcome> {
  const t = ctx.config.traversal;
  const started = performance.now();
  const overTime = (): boolean => performance.now() - started > t.timeBudgetMs;
  const hopsOf = new Map<string, number>(focal.map((e) => [e.entityId, 0]));
  let frontier = [...hopsOf.keys()];
  let truncated = false;
  for (let hop = 1; hop <= t.maxHops && frontier.length > 0; hop++) {
    if (overTime()) {
      truncated = true;
      break;
    }
    const next: string[] = [];
    for (const link of yield* dependencyNeighborsProgram(ctx.agentId, frontier, t.maxBranching)) {
      if (hopsOf.has(link.toId)) continue;
      if (hopsOf.size >= t.maxEntities) {
        truncated = true;
        break;
      }
      hopsOf.set(link.toId, hop);
      next.push(link.toId);
    }
    frontier = next;
  }
  const memories = new Map<string, TraversalPath>();
  if (!overTime()) {
    const claims = yield* activeClaimsForEntitiesProgram(ctx.agentId, [...hopsOf.keys()], t.maxClaims, asOf);
    if (claims.length >= t.maxClaims) truncated = true;
    for (const claim of claims) {
      if (memories.size >= budget) break;
      if (claim.memoryId && !memories.has(claim.memoryId))
        memories.set(claim.memoryId, {
          entityId: claim.entityId,
          hops: hopsOf.get(claim.entityId) ?? 0,
          claimId: claim.claimId,
        });
    }
  } else {
    truncated = true;
  }
  if (memories.size < budget && !overTime()) {
    const mentioning = yield* memoriesMentioningProgram(
      ctx.agentId,
      focal.map((e) => e.entityId),
      budget,
    );
    for (const m of mentioning) {
      if (memories.size >= budget) break;
      if (!memories.has(m.memoryId)) memories.set(m.memoryId, { entityId: m.entityId, hops: 0 });
    }
  }
  return { focal, memories, entitiesVisited: hopsOf.size, truncated };
}
