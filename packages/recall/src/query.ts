import type { MemoryConfig } from '@memory/core';
import { buildFtsMatch, queryTokens } from '@memory/store';

/** How a query's text was turned into an FTS5 query. */
export interface LexicalPlan {
  /** The tokens searched for, after stop-word removal, de-duplication and the token cap. */
  readonly tokens: readonly string[];
  /** `and`: every token must match (OR fills up when too few do); `or`: at least one token must match. */
  readonly mode: 'and' | 'or' | 'none';
}

/**
 * Plans the lexical query: tokens quoted (never raw syntax), stop words dropped (unless the query
 * has nothing else), repeated tokens once, at most `maxQueryTokens`; AND up to `andTokenLimit`
 * tokens, OR beyond.
 */
export function planLexicalQuery(text: string, config: MemoryConfig['recall']): LexicalPlan {
  const tokens = queryTokens(text, config.maxQueryTokens);
  if (tokens.length === 0) return { tokens, mode: 'none' };
  return { tokens, mode: tokens.length <= config.andTokenLimit ? 'and' : 'or' };
}

/** The MATCH expressions to run, in order, for a plan. */
export function matchExpressions(plan: LexicalPlan): string[] {
  const and = buildFtsMatch(plan.tokens, 'AND');
  const or = buildFtsMatch(plan.tokens, 'OR');
  if (plan.mode === 'none' || !and || !or) return [];
  if (plan.mode === 'or' || plan.tokens.length === 1) return [or];
  return [and, or];
}
