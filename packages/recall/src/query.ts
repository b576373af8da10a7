import type { MemoryConfig } from '@memory/core';
import { ftsTokens, type QueryTerms, queryTerms, type TermMatching } from '@memory/store';

/** How a query's text is searched lexically: its terms and how they combine. */
export interface LexicalPlan extends QueryTerms {
  /** The tokens searched for, after stop-word removal, de-duplication and the token cap. */
  readonly tokens: readonly string[];
  /** `and`: every token must match (OR fills up when too few do); `or`: at least one token must match. */
  readonly mode: 'and' | 'or' | 'none';
}

/** A recall query tokenized once: its words (for entity names) and its lexical plan (for the FTS channels). */
export interface ParsedQuery {
  /** Every word of the query in order, repeats and stop words kept: entity names are runs of these. */
  readonly words: readonly string[];
  readonly plan: LexicalPlan;
}

/**
 * Tokenizes the query once and plans the lexical search: stop words dropped (unless the query has
 * nothing else), repeated tokens once, at most `maxQueryTokens`; AND up to `andTokenLimit` tokens,
 * OR beyond.
 */
export function parseQuery(text: string, config: MemoryConfig['recall']): ParsedQuery {
  const words = ftsTokens(text);
  const { tokens } = queryTerms(words, config.maxQueryTokens);
  const mode = tokens.length === 0 ? 'none' : tokens.length <= config.andTokenLimit ? 'and' : 'or';
  return { words, plan: { tokens, mode } };
}

/** The searches to run, in order, for a plan: every term then any term, or any term alone. */
export function lexicalPasses(plan: LexicalPlan): TermMatching[] {
  if (plan.mode === 'none') return [];
  if (plan.mode === 'or' || plan.tokens.length === 1) return ['any'];
  return ['all', 'any'];
}
