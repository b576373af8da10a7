import { STOP_WORDS } from '@memory/core';
import { findMemoryNeighbours, type LexicalHit, type MemoryCandidateRow, termOf } from '@memory/store';
import type { ChannelContext } from './context.js';

/** A lexical match after refinement: its row and a positive score (higher is better). */
export interface RefinedHit {
  readonly row: MemoryCandidateRow;
  readonly score: number;
}

const TOKEN = /[\p{L}\p{N}\p{M}]+/gu;

/** "when …", "what year …", "how long ago …", "since when …": questions answered by a time. */
const TEMPORAL_QUESTION =
  /^\s*(?:when\b|what\s+(?:year|month|date|day|time|week)\b|which\s+(?:year|month|date|day|week)\b|how\s+long\s+ago\b|since\s+when\b)/i;

/** Words and phrases that place an event in time: dates, weekdays, months, relative days and periods. */
const TIME_MENTION =
  /\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|(?:last|next|this|past|coming)\s+(?:week|weekend|month|year|night|summer|winter|spring|fall|autumn|monday|tuesday|wednesday|thursday|friday|saturday|sunday|few\s+\w+)|weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|june|july|august|september|october|november|december|(?:19|20)\d{2}|\d{1,2}\/\d{1,2}(?:\/\d{2,4})?)\b/i;

/** True when the query asks for a time ("When did …?", "What year …?"). */
export function isTemporalQuestion(query: string): boolean {
  return TEMPORAL_QUESTION.test(query);
}

/** True when the text places something in time. */
export function mentionsTime(text: string): boolean {
  return TIME_MENTION.test(text);
}

/**
 * Share (0..1) of the query's distinct term pairs that occur within `window` words of each other in
 * `text` (stop words count as words). 0 when the query has fewer than two terms.
 */
export function proximityShare(text: string, queryTerms: ReadonlySet<string>, window: number): number {
  if (queryTerms.size < 2) return 0;
  const positions: Array<string | undefined> = [];
  for (const m of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) {
    const token = m[0];
    if (STOP_WORDS.has(token)) {
      positions.push(undefined);
      continue;
    }
    const term = termOf(token);
    positions.push(queryTerms.has(term) ? term : undefined);
  }
  const pairs = new Set<string>();
  for (let i = 0; i < positions.length; i++) {
    const a = positions[i];
    if (a === undefined) continue;
    for (let j = i + 1; j <= i + window && j < positions.length; j++) {
      const b = positions[j];
      if (b === undefined || b === a) continue;
      pairs.add(a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);
    }
  }
  const possible = (queryTerms.size * (queryTerms.size - 1)) / 2;
  return Math.min(1, pairs.size / Math.max(1, Math.min(possible, queryTerms.size - 1)));
}

/**
 * The lexical channel's hits with the configured refinements applied, best first: proximity and
 * temporal boosts on BM25, then neighbouring-turn context, which may add rows no term matched (the
 * reply to a matching turn). Scores stay positive; the caller normalizes them by the best.
 */
export function refineLexical(
  ctx: ChannelContext,
  hits: readonly LexicalHit[],
  query: string,
  queryTerms: readonly string[],
): RefinedHit[] {
  const { proximity, proximityWindow, proximityDepth, temporal } = ctx.config.recall.lexical;
  const neighbours = ctx.config.recall.neighbours;
  const terms = new Set(queryTerms);
  const temporalQuery = temporal > 1 && isTemporalQuestion(query);
  const refined = hits.map((hit, i): RefinedHit => {
    let score = -hit.bm25;
    if (proximity > 0 && i < proximityDepth) score *= 1 + proximity * proximityShare(hit.content, terms, proximityWindow);
    if (temporalQuery && mentionsTime(hit.content)) score *= temporal;
    return { row: hit, score };
  });
  if (neighbours.weight <= 0 || refined.length === 0) return sortRefined(refined);

  const bySeq = new Map(refined.map((h) => [h.row.seq, h]));
  const seeds = sortRefined([...refined])
    .filter((h) => h.row.content.length <= neighbours.maxChars)
    .slice(0, neighbours.seeds);
  const found = findMemoryNeighbours(ctx.sql, {
    agentId: ctx.agentId,
    seeds: seeds.map((s) => s.row),
    filters: ctx.filters,
    now: ctx.now,
    gapMs: neighbours.gapMinutes * 60_000,
  });
  // Best neighbour evidence per row; the relation is symmetric, so a seed also borrows from a
  // neighbour that matched on its own.
  const borrowed = new Map<number, number>();
  const rows = new Map<number, MemoryCandidateRow>();
  const lend = (to: number, amount: number) => borrowed.set(to, Math.max(borrowed.get(to) ?? 0, amount));
  for (const { seed, row } of found) {
    if (row.content.length > neighbours.maxChars) continue;
    rows.set(row.seq, row);
    lend(row.seq, bySeq.get(seed)?.score ?? 0);
    lend(seed, bySeq.get(row.seq)?.score ?? 0);
  }
  const out: RefinedHit[] = refined.map((h) => ({
    row: h.row,
    score: h.score + neighbours.weight * (borrowed.get(h.row.seq) ?? 0),
  }));
  for (const [seq, row] of rows) {
    if (bySeq.has(seq)) continue;
    const amount = borrowed.get(seq) ?? 0;
    if (amount > 0) out.push({ row, score: neighbours.weight * amount });
  }
  return sortRefined(out);
}

/** Best first; equal scores in write order (the row's seq), never by random id. */
function sortRefined(hits: RefinedHit[]): RefinedHit[] {
  return hits.sort((a, b) => b.score - a.score || a.row.seq - b.row.seq);
}
