import { type Program, searchHintsProgram } from '@memory/store';
import type { ChannelContext } from './context.js';

/** BM25 over the agent's prospective hints (any query token); one row per memory. */
export function hintsChannel(ctx: ChannelContext): Program<Array<{ memoryId: string; bm25: number }>> {
  return searchHintsProgram(ctx.agentId, ctx.plan, ctx.config.recall.hintCandidates);
}
