import { type DrillDown, type RecallItem, type RecallResponse, WINDOW_EXCLUDED_CAP } from './types.js';

export interface FormatRecallOptions {
  /** Approximate size of the rendered text, in tokens (4 characters each). @default 1000 */
  readonly budgetTokens?: number;
  /** Show scores next to related results. @default true */
  readonly scores?: boolean;
  /** End each result line with its memory id, for agents that act on results (forget, modify). @default false */
  readonly ids?: boolean;
}

/** Says what the search window left out, so an empty or thin answer is never silent about it. */
function windowNote(response: RecallResponse<RecallItem>): string {
  const { excluded, since, days } = response.window ?? { excluded: 0, since: null, days: null };
  if (!excluded || since === null) return '';
  const more = excluded >= WINDOW_EXCLUDED_CAP ? '+' : '';
  return ` in the last ${days ?? '?'} days (since ${date(since)}); ${excluded}${more} older matching memor${excluded === 1 ? 'y' : 'ies'} outside the window: recall with windowDays: null to see them`;
}

function date(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function resultLine(r: RecallItem, scores: boolean, ids: boolean): string {
  if (r.kind === 'note') {
    const score = scores && r.tier === 'related' ? ` · ${r.score.toFixed(2)}` : '';
    const id = ids ? ` [note id: ${r.id}]` : '';
    const text = `${r.title}: ${r.content}`.replace(/\s+/g, ' ').trim();
    return `- [note · ${r.status} · ${date(r.updatedAt)}${score}] ${text}${id}`;
  }
  const entities = r.entities && r.entities.length > 0 ? ` (about: ${r.entities.map((e) => e.name).join(', ')})` : '';
  const score = scores && r.tier === 'related' ? ` · ${r.score.toFixed(2)}` : '';
  const id = ids ? ` [id: ${r.id}]` : '';
  return `- [${r.type} · ${date(r.createdAt)}${score}] ${r.content.replace(/\s+/g, ' ').trim()}${entities}${id}`;
}

function drillLine(d: DrillDown): string {
  switch (d.kind) {
    case 'expand_session':
      return `- expand session ${d.sessionKey}: ${d.reason}`;
    case 'open_entity':
      return `- open entity ${d.name} (${d.entityId}): ${d.reason}`;
    case 'narrower_query':
      return `- narrower query "${d.query}": ${d.reason}`;
    case 'widen_window':
      return `- widen the window (windowDays: null): ${d.reason}`;
  }
}

/**
 * Renders a recall response for a prompt: LINKED CONTEXT (structurally verified), POSSIBLY RELATED
 * (text or meaning matches: hypotheses) and DRILL-DOWN, in that order, results by score, ties in
 * recall's order.
 * Stops adding lines at the budget and says how many were left out. Deterministic.
 */
export function formatRecall(response: RecallResponse<RecallItem>, options: FormatRecallOptions = {}): string {
  if (response.results.length === 0) return `NO RELEVANT MEMORIES${windowNote(response)}`;
  const budgetChars = Math.max(40, (options.budgetTokens ?? 1000) * 4);
  const scores = options.scores ?? true;
  const ids = options.ids ?? false;
  // A stable sort on score keeps recall's own order (score, recency, content hash) for ties: ids
  // are random and must not decide.
  const order = (a: RecallItem, b: RecallItem): number => b.score - a.score;
  const sections: Array<[string, string[]]> = [
    [
      'LINKED CONTEXT',
      response.results
        .filter((r) => r.tier === 'linked')
        .sort(order)
        .map((r) => resultLine(r, scores, ids)),
    ],
    [
      'POSSIBLY RELATED',
      response.results
        .filter((r) => r.tier === 'related')
        .sort(order)
        .map((r) => resultLine(r, scores, ids)),
    ],
    ['DRILL-DOWN', response.drillDown.map(drillLine)],
  ];
  const out: string[] = [];
  let used = 0;
  let omitted = 0;
  for (const [title, lines] of sections) {
    if (lines.length === 0) continue;
    if (used + title.length + 1 > budgetChars) {
      omitted += lines.length;
      continue;
    }
    const kept: string[] = [];
    for (const line of lines) {
      if (used + title.length + line.length + 2 > budgetChars) {
        omitted++;
        continue;
      }
      kept.push(line);
      used += line.length + 1;
    }
    if (kept.length === 0) continue;
    out.push(title, ...kept, '');
    used += title.length + 2;
  }
  if (out.length === 0) return `(${omitted} items did not fit the budget)`;
  if (omitted > 0) out.push(`(${omitted} more items left out to fit the budget)`);
  return out.join('\n').trimEnd();
}
