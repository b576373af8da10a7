import type { TaskDrillDown, TaskRecall, TaskRecallItem } from './task-recall.js';

/** The seed's instruction to the agent, rendered under POSSIBLY RELATED. */
export const HYPOTHESIS_INSTRUCTION =
  'Treat POSSIBLY RELATED items as hypotheses, not facts: they matched by words or meaning only and may be ' +
  'about another person, project or time. Verify them (DRILL-DOWN, or ask) before acting on them, and never ' +
  'assume a connection that LINKED CONTEXT does not confirm.';

export interface FormatTaskRecallOptions {
  /** Approximate size of the rendered text, in tokens (4 characters each). @default 1200 */
  readonly budgetTokens?: number;
  /** End each item line with its id, for agents that act on items (update a note, forget a memory). @default false */
  readonly ids?: boolean;
}

const date = (ms: number): string => (ms > 0 ? new Date(ms).toISOString().slice(0, 10) : '?');
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();
const refText = (r: { type: string; refId: string; label?: string | undefined }): string =>
  r.label ? `${r.label} (${r.type}:${r.refId})` : `${r.type}:${r.refId}`;

function itemLine(item: TaskRecallItem, ids: boolean, tier: 'linked' | 'related'): string {
  const head =
    item.kind === 'note'
      ? `[note · ${item.status ?? 'active'} · ${date(item.at)}] ${oneLine(item.title ?? '')}: ${oneLine(item.content)}`
      : `[${item.memoryType ?? 'memory'} · ${date(item.at)}] ${oneLine(item.content)}`;
  const via =
    tier === 'linked' && item.linkedBy.length > 0 ? ` (linked to ${item.linkedBy.map(refText).join(', ')})` : '';
  const score = tier === 'related' ? ` · ${item.score.toFixed(2)}` : '';
  return `- ${head}${via}${score}${ids ? ` [id: ${item.id}]` : ''}`;
}

function drillLine(d: TaskDrillDown): string {
  switch (d.kind) {
    case 'open_host_object':
      return `- open ${refText(d)}: ${d.reason}`;
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
 * Renders a task recall for a prompt: LINKED CONTEXT (structurally verified, with the host objects
 * the task resolved to), POSSIBLY RELATED (with the instruction that these are hypotheses to verify)
 * and DRILL-DOWN. Items keep the steward's order. Stops adding lines at the budget and says how
 * many were left out. Deterministic.
 */
export function formatTaskRecall(recall: TaskRecall, options: FormatTaskRecallOptions = {}): string {
  const budget = Math.max(200, (options.budgetTokens ?? 1200) * 4);
  const ids = options.ids ?? false;
  const resolved =
    recall.entities.length > 0 ? `Resolved: ${recall.entities.map(refText).join('; ')}` : 'Resolved: nothing';
  const sections: Array<{ title: string; lead: string[]; lines: string[] }> = [
    {
      title: 'LINKED CONTEXT',
      lead: [resolved],
      lines:
        recall.linked.length > 0
          ? recall.linked.map((i) => itemLine(i, ids, 'linked'))
          : ['- (nothing linked to these host objects yet)'],
    },
    {
      title: 'POSSIBLY RELATED',
      lead: recall.related.length > 0 ? [HYPOTHESIS_INSTRUCTION] : [],
      lines: recall.related.map((i) => itemLine(i, ids, 'related')),
    },
    { title: 'DRILL-DOWN', lead: [], lines: recall.drillDown.map(drillLine) },
  ];
  const out: string[] = [];
  let used = 0;
  let omitted = 0;
  for (const { title, lead, lines } of sections) {
    if (lines.length === 0) continue;
    const header = [title, ...lead];
    const headerSize = header.reduce((n, l) => n + l.length + 1, 0);
    if (used + headerSize > budget) {
      omitted += lines.length;
      continue;
    }
    out.push(...header);
    used += headerSize;
    for (const line of lines) {
      if (used + line.length + 1 > budget) {
        omitted++;
        continue;
      }
      out.push(line);
      used += line.length + 1;
    }
    out.push('');
  }
  if (omitted > 0) out.push(`(${omitted} more items left out to fit the budget)`);
  return out.join('\n').trimEnd();
}
