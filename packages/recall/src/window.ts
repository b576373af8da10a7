import { findMatchesBeforeWindowProgram, type Program, readMemoryCandidatesProgram } from '@memory/store';
import type { RecallContext, RecallRun } from './recall-context.js';
import { stageProgram } from './recall-context.js';
import { WINDOW_EXCLUDED_CAP } from './types.js';

/**
 * Memories the search window hid from this query: the agent's text matches older than the window,
 * and the semantic hits it dropped whose cosine alone would have cleared the score floor. Ids, at
 * most {@link WINDOW_EXCLUDED_CAP}. Runs inside the candidates' read, after the window was applied.
 */
export function* matchesOutsideWindow(
  ctx: RecallContext,
  run: RecallRun,
  droppedSemantic: ReadonlyArray<{ id: string; cosine: number }>,
): Program<Set<string>> {
  const windowStart = run.filters.windowStart;
  const out = new Set<string>();
  if (windowStart === undefined) return out;
  const { agentId } = run.request;
  if (ctx.config.recall.channels.lexical) {
    const ids = yield* stageProgram(
      run,
      'window',
      () =>
        findMatchesBeforeWindowProgram({
          agentId,
          terms: run.query.plan,
          filters: run.filters,
          windowStart,
          now: run.now,
          cap: WINDOW_EXCLUDED_CAP,
        }),
      [],
    );
    for (const id of ids) out.add(id);
  }
  const { semanticWeight, minScore } = ctx.config.recall;
  const strong = droppedSemantic
    .filter((d) => semanticWeight * d.cosine >= minScore && !out.has(d.id))
    .map((d) => d.id);
  if (strong.length > 0 && out.size < WINDOW_EXCLUDED_CAP) {
    const unwindowed = { ...run.filters, windowStart: undefined };
    const rows = yield* stageProgram(
      run,
      'window',
      () => readMemoryCandidatesProgram(agentId, strong, unwindowed, run.now),
      [],
    );
    for (const row of rows) if (row.created_at < windowStart && row.pinned === 0) out.add(row.id);
  }
  return out;
}

/** The warning a recall adds when its window left matches out. */
export function windowWarning(excluded: number, days: number | null, since: number): string {
  const count = excluded >= WINDOW_EXCLUDED_CAP ? `at least ${excluded}` : String(excluded);
  return `window: ${count} matching memor${excluded === 1 ? 'y is' : 'ies are'} older than the ${days ?? ''}-day search window (before ${new Date(since).toISOString()}); recall with windowDays: null (or an earlier now) to include them`;
}
