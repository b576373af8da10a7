import { buildFtsMatch, searchHints } from '@memory/store';
import type { ChannelContext } from './context.js';

/** BM25 over the agent's prospective hints (any query token); one row per memory. */
export function hintsChannel(ctx: ChannelContext): Array<{ memoryId: string; bm25: number }> {
  const match = buildFtsMatch(ctx.plan.tokens, 'OR');
  if (!match) return [];
  return searchHints(ctx.sql, ctx.agentId, match, ctx.config.recall.hintCandidates);
}
