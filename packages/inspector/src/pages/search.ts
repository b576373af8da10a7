import type { RecallResult } from '@memory/engine';
import { html, num } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

function adjustments(result: RecallResult): string {
  const adj = result.explanation?.adjustments ?? {};
  const parts = Object.entries(adj)
    .filter(([, v]) => typeof v === 'number')
    .map(([k, v]) => `${k} ${num(v as number)}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The search page: a query box and, with `q`, recall's results with their explanation. */
export async function searchPage(ctx: PageContext): Promise<PageResult> {
  const q = ctx.query.get('q')?.trim() ?? '';
  const form = html`<form method="get" action="/" role="search">
<label for="q">Query</label><input id="q" name="q" type="search" size="50" value="${q}" required>
<button type="submit">Search</button></form>`;
  if (q === '') return pageOf('Search', form);
  const response = await ctx.engine.recall({ agentId: ctx.agentId, query: q, explain: true, limit: 20 });
  const rows = response.results.map(
    (r) => html`<tr data-testid="result">
<td><a href="/memories/${encodeURIComponent(r.id)}">${r.content.slice(0, 160)}</a><br><span class="tag">${r.type}</span></td>
<td>${r.tier}</td><td>${num(r.score)}</td><td>${num(r.explanation?.fused)}</td>
<td>${Object.entries(r.channels)
      .filter(([, v]) => typeof v === 'number')
      .map(([k, v]) => `${k} ${num(v as number)}`)
      .join(', ')}</td>
<td>${adjustments(r)}</td></tr>`,
  );
  return pageOf(
    'Search',
    html`${form}
<p class="muted">${response.results.length} results · vectors: ${String(response.vectorCompleteness)} · ${num(response.timings.totalMs, 1)} ms</p>
<table><caption class="muted">Tier: linked = reached structurally (verified), related = by text or meaning (a hypothesis)</caption>
<thead><tr><th scope="col">Memory</th><th scope="col">Tier</th><th scope="col">Score</th><th scope="col">Fused</th><th scope="col">Channels</th><th scope="col">Dampening and boosts</th></tr></thead>
<tbody>${rows}</tbody></table>`,
  );
}
