import { type LexicalHit, type Program, searchMemoriesLexicalProgram } from '@memory/store';
import { lexicalPasses } from '../query.js';
import type { ChannelContext } from './context.js';

/**
 * BM25 over the agent's live memories (scored from its own statistics), filters applied in the reading query. Matches of every
 * query token come first; when too few, matches of any token fill the pool.
 */
export function* lexicalChannel(ctx: ChannelContext, pool: number): Program<LexicalHit[]> {
  const hits: LexicalHit[] = [];
  const seen = new Set<string>();
  for (const matching of lexicalPasses(ctx.plan)) {
    if (hits.length >= pool) break;
    const found = yield* searchMemoriesLexicalProgram({
      agentId: ctx.agentId,
      terms: ctx.plan,
      matching,
      filters: ctx.filters,
      now: ctx.now,
      limit: Math.min(pool + seen.size, ctx.config.recall.lexicalCandidates),
    });
    for (const hit of found) {
      if (hits.length >= pool) break;
      if (seen.has(hit.id)) continue;
      seen.add(hit.id);
      hits.push(hit);
    }
  }
  return hits;
}
