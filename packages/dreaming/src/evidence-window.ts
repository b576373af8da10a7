import {
  evidenceRenderingProgram,
  type Program,
  runSqliteProgram,
  type SqlExecutor,
  undeliveredEvidenceCharsProgram,
  undeliveredEvidenceProgram,
  upsertDeliveredOffsetProgram,
} from '@memory/store';

/** One piece of evidence delivered to a pass: a slice of a source's rendering. */
export interface EvidenceFragment {
  readonly sourceRef: string;
  /** Character offset of `text` in the source's rendering. */
  readonly offset: number;
  readonly text: string;
}

/** What a window delivered from one source. */
export interface DeliveredSpan {
  readonly sourceRef: string;
  readonly from: number;
  readonly to: number;
  readonly total: number;
}

export interface EvidenceWindow {
  readonly fragments: readonly EvidenceFragment[];
  readonly spans: readonly DeliveredSpan[];
  /** Estimated tokens (characters / 4) of the fragments. */
  readonly tokens: number;
  /** True when undelivered evidence remains beyond this window. */
  readonly more: boolean;
}

/** Characters per estimated token. */
const CHARS_PER_TOKEN = 4;
/** The smallest fragment cut to fit the remaining budget. */
const MIN_FRAGMENT_CHARS = 200;
/** Sources read per page while filling a window. */
const PAGE = 200;

/**
 * The end of the fragment starting at `from`: at most `max` characters, cut after the last
 * paragraph break, else the last sentence end, else the last whitespace in the second half of
 * the span; a hard cut only when there is none.
 */
export function fragmentEnd(text: string, from: number, max: number): number {
  const hardEnd = Math.min(text.length, from + max);
  if (hardEnd === text.length) return hardEnd;
  const span = text.slice(from, hardEnd);
  const floor = Math.floor(span.length / 2);
  const paragraph = span.lastIndexOf('\n\n');
  if (paragraph >= floor) return from + paragraph + 2;
  // A sentence ends after its punctuation and the following space or newline.
  const ends = ['. ', '? ', '! ', '.\n']
    .map((mark) => span.lastIndexOf(mark))
    .filter((i) => i >= 0)
    .map((i) => i + 2);
  const newline = span.lastIndexOf('\n');
  const sentence = Math.max(-1, ...ends, newline >= 0 ? newline + 1 : -1);
  if (sentence > floor) return from + sentence;
  const space = span.lastIndexOf(' ');
  if (space >= floor) return from + space + 1;
  return hardEnd;
}

function* renderingProgram(agentId: string, sourceRef: string): Program<string | undefined> {
  const colon = sourceRef.indexOf(':');
  return yield* evidenceRenderingProgram(agentId, sourceRef.slice(0, colon), sourceRef.slice(colon + 1));
}

/**
 * Fills a pass's evidence window: undelivered evidence of one agent, oldest first, resumed from
 * each source's delivered offset, cut into fragments of at most `fragmentChars` at paragraph or
 * sentence boundaries, until `budgetTokens` is spent. Reads only the sources it delivers.
 */
export function selectEvidence(
  sql: SqlExecutor,
  agentId: string,
  options: { budgetTokens: number; fragmentChars: number },
): EvidenceWindow {
  return runSqliteProgram(sql, selectEvidenceProgram(agentId, options));
}

/** {@link selectEvidence} as a program (both dialects). */
export function* selectEvidenceProgram(
  agentId: string,
  options: { budgetTokens: number; fragmentChars: number },
): Program<EvidenceWindow> {
  const budgetChars = options.budgetTokens * CHARS_PER_TOKEN;
  const fragments: EvidenceFragment[] = [];
  const spans: DeliveredSpan[] = [];
  let used = 0;
  let more = false;
  for (let page = 0; !more; page += PAGE) {
    const rows = yield* undeliveredEvidenceProgram(agentId, PAGE, page);
    for (const row of rows) {
      if (used >= budgetChars) {
        more = true;
        break;
      }
      const text = yield* renderingProgram(agentId, row.sourceRef);
      if (text === undefined) continue;
      let at = Math.min(row.delivered, text.length);
      const from = at;
      while (at < text.length && used < budgetChars) {
        const limit = Math.min(options.fragmentChars, budgetChars - used);
        // A sliver of budget left would cut mid-sentence: leave the rest for the next window.
        if (limit < Math.min(options.fragmentChars, MIN_FRAGMENT_CHARS) && fragments.length > 0) {
          used = budgetChars;
          break;
        }
        const end = fragmentEnd(text, at, limit);
        fragments.push({ sourceRef: row.sourceRef, offset: at, text: text.slice(at, end) });
        used += end - at;
        at = end;
      }
      spans.push({ sourceRef: row.sourceRef, from, to: at, total: text.length });
      if (at < text.length) more = true;
    }
    if (rows.length < PAGE) break;
  }
  return { fragments, spans, tokens: Math.ceil(used / CHARS_PER_TOKEN), more };
}

/** Records what a completed pass delivered, so the next one resumes after it. */
export function recordDelivered(sql: SqlExecutor, agentId: string, spans: readonly DeliveredSpan[], now: number): void {
  runSqliteProgram(sql, recordDeliveredProgram(agentId, spans, now));
}

/** {@link recordDelivered} as a program (both dialects). */
export function* recordDeliveredProgram(agentId: string, spans: readonly DeliveredSpan[], now: number): Program<void> {
  for (const span of spans) {
    yield* upsertDeliveredOffsetProgram({
      agentId,
      sourceRef: span.sourceRef,
      deliveredChars: span.to,
      totalChars: span.total,
      now,
    });
  }
}

/** Estimated tokens of evidence not yet delivered (for the trigger). */
export function backlogTokens(sql: SqlExecutor, agentId: string): number {
  return runSqliteProgram(sql, backlogTokensProgram(agentId));
}

/** {@link backlogTokens} as a program (both dialects). */
export function* backlogTokensProgram(agentId: string): Program<number> {
  return Math.ceil((yield* undeliveredEvidenceCharsProgram(agentId)) / CHARS_PER_TOKEN);
}
