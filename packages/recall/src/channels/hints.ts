import { searchHints } from '@memory/store';
import type { ChannelContext } from './context.js';

/** BM25 over the agent's prospective hints (any query token); one row per memory. */
export function hintsChannel(ctx: ChannelContext): Array<{ memoryId: string; bm25: number }> {
  return searchHints(ctx.sql, ctx.agentId, ctx.plan, ctx.config.recall.hintCandidates);
}
