import { STOP_WORDS } from '@memory/core';
import { type LexicalHit, type QueryTerms, termOf } from '@memory/store';

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * RM3 query expansion from the top lexical matches: each term's probability in a match (its count
 * over the match's length), summed over the top `docs` matches weighted by their share of the BM25;
 * the `terms` most likely terms the query lacks are added. Original terms weigh `originalWeight` /
 * their number, expansion terms share the rest in proportion to their probability; weights are
 * scaled so an original term of an unexpanded query would weigh 1. Undefined when nothing is added.
 */
export function expandQuery(
  query: QueryTerms,
  hits: readonly LexicalHit[],
  options: { terms: number; docs: number; originalWeight: number },
): QueryTerms | undefined {
  const top = hits.slice(0, options.docs);
  const total = top.reduce((sum, h) => sum + Math.max(0, -h.bm25), 0);
  if (options.terms <= 0 || top.length === 0 || total <= 0 || query.tokens.length === 0) return undefined;
  const original = new Set(query.tokens.map(termOf));
  const probability = new Map<string, number>();
  const surface = new Map<string, string>();
  for (const hit of top) {
    const counts = new Map<string, number>();
    let length = 0;
    for (const m of hit.content.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
      if (STOP_WORDS.has(m[0]) || /^\d+$/.test(m[0])) continue;
      length++;
      const term = termOf(m[0]);
      if (original.has(term) || term.length < 2) continue;
      counts.set(term, (counts.get(term) ?? 0) + 1);
      if (!surface.has(term)) surface.set(term, m[0]);
    }
    const docWeight = -hit.bm25 / total;
    for (const [term, n] of counts) probability.set(term, (probability.get(term) ?? 0) + (docWeight * n) / length);
  }
  const chosen = [...probability]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, options.terms);
  const mass = chosen.reduce((sum, [, p]) => sum + p, 0);
  if (chosen.length === 0 || mass <= 0) return undefined;
  const n = query.tokens.length;
  // Scaled by n: the original terms weigh originalWeight each (1 for an unexpanded query).
  const tokens = [...query.tokens, ...chosen.map(([term]) => surface.get(term) ?? term)];
  const weights = [
    ...query.tokens.map(() => options.originalWeight),
    ...chosen.map(([, p]) => ((1 - options.originalWeight) * n * p) / mass),
  ];
  return { tokens, weights };
}
