import { type LexicalHit, searchMemoriesLexical } from '@memory/store';
import { matchExpression } from '../query.js';
import type { ChannelContext } from './context.js';

/** BM25 over the agent's live memories (any query token), filters applied in the reading query. */
export function lexicalChannel(ctx: ChannelContext, pool: number): LexicalHit[] {
  const match = matchExpression(ctx.plan);
  if (!match) return [];
  return searchMemoriesLexical(ctx.sql, { agentId: ctx.agentId, match, filters: ctx.filters, now: ctx.now, limit: Math.min(pool, ctx.config.recall.lexicalCandidates) });
}
