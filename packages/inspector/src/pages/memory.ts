import { html, num, time } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

/** A memory's page: its fields, its history (oldest first) and the provenance of Dreaming's writes to it. */
export async function memoryPage(ctx: PageContext, id: string): Promise<PageResult> {
  const { engine, agentId } = ctx;
  const memory = await engine.getMemory({ agentId, id, includeDeleted: true });
  if (!memory) return pageOf('Not found', html`<p>No memory ${id} for this agent.</p>`, 404);
  const history = await engine.history({ agentId, id });
  const provenance = await engine.dreaming.provenance({ agentId, targetType: 'memory', targetId: id, limit: 50 });
  return pageOf(
    'Memory',
    html`<pre data-testid="memory-content">${memory.content}</pre>
<table><tbody>
<tr><th scope="row">id</th><td><code>${memory.id}</code></td></tr>
<tr><th scope="row">type</th><td>${memory.type}${memory.category ? ` · ${memory.category}` : ''}</td></tr>
<tr><th scope="row">importance</th><td>${num(memory.importance)}</td></tr>
<tr><th scope="row">pinned</th><td>${memory.pinned ? 'yes' : 'no'}</td></tr>
<tr><th scope="row">forgotten</th><td>${memory.deleted ? 'yes' : 'no'}</td></tr>
<tr><th scope="row">created</th><td>${time(memory.createdAt)}</td></tr>
<tr><th scope="row">updated</th><td>${time(memory.updatedAt)}</td></tr>
</tbody></table>
<h2>History</h2>
<table><thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">By</th><th scope="col">Reason</th><th scope="col">Content after</th></tr></thead>
<tbody>${history.map(
      (h) =>
        html`<tr><td>${time(h.at)}</td><td>${h.event}</td><td>${h.changedBy} (${h.actorType})</td><td>${h.reason ?? ''}</td><td>${h.newContent ?? '—'}</td></tr>`,
    )}</tbody></table>
<h2>Provenance</h2>
${
  provenance.items.length === 0
    ? html`<p class="muted">No Dreaming operation named this memory.</p>`
    : html`<table><thead><tr><th scope="col">When</th><th scope="col">Pass</th><th scope="col">Operation</th><th scope="col">Quotes</th><th scope="col">Reverted</th></tr></thead>
<tbody>${provenance.items.map(
        (
          p,
        ) => html`<tr><td>${time(p.createdAt)}</td><td>${p.passId ? html`<a href="/passes/${encodeURIComponent(p.passId)}">${p.passId}</a>` : '—'}</td>
<td>${p.operation}</td><td>${p.evidence.map((e) => html`<div><code>${e.sourceRef}</code>: “${e.quote}”</div>`)}</td><td>${time(p.revertedAt)}</td></tr>`,
      )}</tbody></table>`
}`,
  );
}
