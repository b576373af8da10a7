import { findMemoryNeighboursProgram, type LexicalHit, type MemoryCandidateRow, type Program } from '@memory/store';
import type { ChannelContext } from './context.js';

/** A lexical match after refinement: its row and a positive score (higher is better). */
export interface RefinedHit {
  readonly row: MemoryCandidateRow;
  readonly score: number;
}

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
 * The lexical channel's hits with the configured refinements applied, best first: the temporal
 * boost on BM25, then neighbouring-turn context, which may add rows no term matched (the reply to
 * a matching turn). Scores stay positive; the caller normalizes them by the best.
 */
export function* refineLexical(ctx: ChannelContext, hits: readonly LexicalHit[], query: string): Program<RefinedHit[]> {
  const { temporal } = ctx.config.recall.lexical;
  const neighbours = ctx.config.recall.neighbours;
  const temporalQuery = temporal > 1 && isTemporalQuestion(query);
  const refined = hits.map((hit): RefinedHit => {
    const score = -hit.bm25;
    return { row: hit, score: temporalQuery && mentionsTime(hit.content) ? score * temporal : score };
  });
  if (neighbours.weight <= 0 || refined.length === 0) return sortRefined(refined);

  const bySeq = new Map(refined.map((h) => [h.row.seq, h]));
  const seeds = sortRefined([...refined])
    .filter((h) => h.row.content.length <= neighbours.maxChars)
    .slice(0, neighbours.seeds);
  const found = yield* findMemoryNeighboursProgram({
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
