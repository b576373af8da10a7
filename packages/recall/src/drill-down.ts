import type { LexicalPlan } from './query.js';
import { type DrillDown, type RecallResult, WINDOW_EXCLUDED_CAP } from './types.js';

const MAX_SUGGESTIONS = 5;

/**
 * Next steps after a recall, deterministic: widen the search window when it left matches out, expand the sessions behind the top results (unless
 * already expanded), open the entities the results share most, and — for a broad OR query — the
 * narrower query made of the terms the best result matched.
 */
export function buildDrillDown(
  results: readonly RecallResult[],
  plan: LexicalPlan,
  expanded: boolean,
  outsideWindow = 0,
): DrillDown[] {
  const out: DrillDown[] = [];
  // First: matches the window hid are the one thing a caller cannot find out otherwise.
  if (outsideWindow > 0)
    out.push({
      kind: 'widen_window',
      windowDays: null,
      excluded: outsideWindow,
      reason: `${outsideWindow}${outsideWindow >= WINDOW_EXCLUDED_CAP ? '+' : ''} matching memor${outsideWindow === 1 ? 'y is' : 'ies are'} older than the search window: recall again with windowDays: null`,
    });
  if (!expanded) {
    const sessions = new Set<string>();
    for (const r of results) {
      if (r.source?.type === 'transcript' && !sessions.has(r.source.id) && sessions.size < 2) {
        sessions.add(r.source.id);
        out.push({
          kind: 'expand_session',
          sessionKey: r.source.id,
          reason: 'recall again with expand: true to read the conversation around this result',
        });
      }
    }
  }
  const counts = new Map<string, { name: string; n: number }>();
  for (const r of results)
    for (const e of r.entities ?? []) counts.set(e.id, { name: e.name, n: (counts.get(e.id)?.n ?? 0) + 1 });
  const entities = [...counts]
    .sort((a, b) => b[1].n - a[1].n || (a[1].name < b[1].name ? -1 : a[1].name > b[1].name ? 1 : a[0] < b[0] ? -1 : 1))
    .slice(0, 2);
  for (const [entityId, { name, n }] of entities)
    out.push({ kind: 'open_entity', entityId, name, reason: `${n} result${n === 1 ? '' : 's'} mention ${name}` });
  const best = results[0];
  if (plan.mode === 'or' && best) {
    const content = best.content.toLowerCase();
    const matched = plan.tokens.filter((token) => content.includes(token)).slice(0, 3);
    if (matched.length > 0 && matched.length < plan.tokens.length) {
      out.push({ kind: 'narrower_query', query: matched.join(' '), reason: 'the terms the best result matched' });
    }
  }
  return out.slice(0, MAX_SUGGESTIONS);
}
