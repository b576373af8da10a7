import { ftsTokens, type Program, sessionTurnsProgram } from '@memory/store';

/** A bounded excerpt of a session transcript behind one or more results. */
export interface SessionExcerpt {
  readonly sessionKey: string;
  /** `role: text` lines around the turns that match the query best, in transcript order. */
  readonly excerpt: string;
  /** Results that came from this session. */
  readonly memoryIds: readonly string[];
  /** True when the session has more than the excerpt shows. */
  readonly truncated: boolean;
}

const MAX_TURNS_READ = 2000;

/**
 * Picks the turns to show: the one sharing the most query tokens, then its neighbours outwards,
 * until `maxChars` is spent. Ties go to the earlier turn. Pure.
 */
export function selectExcerpt(
  turns: ReadonlyArray<{ role: string; content: string }>,
  queryTokens: readonly string[],
  maxChars: number,
): { text: string; truncated: boolean } {
  if (turns.length === 0) return { text: '', truncated: false };
  const wanted = new Set(queryTokens);
  let best = 0;
  let bestScore = -1;
  turns.forEach((turn, i) => {
    let score = 0;
    for (const token of new Set(ftsTokens(turn.content))) if (wanted.has(token)) score++;
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  });
  const line = (i: number): string => {
    const turn = turns[i];
    return turn ? `${turn.role}: ${turn.content}` : '';
  };
  const first = line(best);
  const chosen = new Map<number, string>([
    [best, first.length > maxChars ? `${first.slice(0, Math.max(0, maxChars - 1))}…` : first],
  ]);
  let used = Math.min(first.length, maxChars);
  // Grow outwards from the best turn; a side stops at the first turn that no longer fits.
  let before = best - 1;
  let after = best + 1;
  while (before >= 0 || after < turns.length) {
    if (before >= 0) {
      const text = line(before);
      if (used + text.length + 1 <= maxChars) {
        chosen.set(before, text);
        used += text.length + 1;
        before--;
      } else before = -1;
    }
    if (after < turns.length) {
      const text = line(after);
      if (used + text.length + 1 <= maxChars) {
        chosen.set(after, text);
        used += text.length + 1;
        after++;
      } else after = turns.length;
    }
  }
  const ordered = [...chosen.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => text);
  return { text: ordered.join('\n'), truncated: chosen.size < turns.length };
}

/** Excerpts for the first `maxSessions` transcript sessions behind the results, in result order. */
export function* expandSessions(
  agentId: string,
  results: ReadonlyArray<{ id: string; source?: { type: string; id: string } | undefined }>,
  queryTokens: readonly string[],
  options: { maxSessions: number; excerptChars: number },
): Program<SessionExcerpt[]> {
  const bySession = new Map<string, string[]>();
  for (const result of results) {
    if (result.source?.type !== 'transcript') continue;
    const ids = bySession.get(result.source.id);
    if (ids) ids.push(result.id);
    else if (bySession.size < options.maxSessions) bySession.set(result.source.id, [result.id]);
  }
  const excerpts: SessionExcerpt[] = [];
  for (const [sessionKey, memoryIds] of bySession) {
    const turns = yield* sessionTurnsProgram(agentId, sessionKey, MAX_TURNS_READ);
    if (turns.length === 0) continue;
    const { text, truncated } = selectExcerpt(turns, queryTokens, options.excerptChars);
    excerpts.push({ sessionKey, excerpt: text, memoryIds, truncated: truncated || turns.length >= MAX_TURNS_READ });
  }
  return excerpts;
}
