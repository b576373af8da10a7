import type { Neighbourhood } from '@memory/engine';
import { type Html, html, num, time } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

/** The agent's entities by name, paged, with a name filter. */
export async function entitiesPage(ctx: PageContext): Promise<PageResult> {
  const query = ctx.query.get('q')?.trim() || undefined;
  const cursor = ctx.query.get('cursor') || undefined;
  const page = await ctx.engine.graph.entities({
    agentId: ctx.agentId,
    status: 'all',
    limit: 50,
    ...(query ? { query } : {}),
    ...(cursor ? { cursor } : {}),
  });
  const next = page.nextCursor
    ? html`<p><a href="/entities?${new URLSearchParams({ ...(query ? { q: query } : {}), cursor: page.nextCursor }).toString()}">Next page</a></p>`
    : '';
  return pageOf(
    'Graph',
    html`<form method="get" action="/entities"><label for="q">Name or alias</label><input id="q" name="q" value="${query ?? ''}"><button>Filter</button></form>
<table><thead><tr><th scope="col">Entity</th><th scope="col">Type</th><th scope="col">Status</th><th scope="col">Mentions</th></tr></thead>
<tbody>${page.items.map(
      (e) =>
        html`<tr><td><a href="/entities/${encodeURIComponent(e.id)}">${e.name}</a></td><td>${e.type}</td><td>${e.status}</td><td>${e.mentions}</td></tr>`,
    )}</tbody></table>${next}`,
  );
}

/** The neighbourhood as an SVG: the entity in the centre, each depth on its own ring; nodes link to their pages. */
function neighbourhoodSvg(n: Neighbourhood): Html {
  const size = 420;
  const c = size / 2;
  const rings = new Map<number, string[]>();
  for (const node of n.nodes) rings.set(node.depth, [...(rings.get(node.depth) ?? []), node.id]);
  const at = new Map<string, { x: number; y: number }>();
  for (const [depth, ids] of rings) {
    ids.forEach((id, i) => {
      const angle = (2 * Math.PI * i) / ids.length + depth * 0.4;
      const r = depth * 65;
      at.set(id, { x: c + r * Math.cos(angle), y: c + r * Math.sin(angle) });
    });
  }
  const edges = n.links.map((l) => {
    const a = at.get(l.sourceId);
    const b = at.get(l.targetId);
    return a && b
      ? html`<line x1="${num(a.x)}" y1="${num(a.y)}" x2="${num(b.x)}" y2="${num(b.y)}" stroke="#8a96a3"><title>${l.sourceName} ${l.type} ${l.targetName}</title></line>`
      : '';
  });
  const nodes = n.nodes.map((node) => {
    const p = at.get(node.id) ?? { x: c, y: c };
    return html`<a href="/entities/${encodeURIComponent(node.id)}"><circle cx="${num(p.x)}" cy="${num(p.y)}" r="${node.depth === 0 ? 9 : 6}" fill="${node.depth === 0 ? '#c0392b' : '#2e6da4'}"><title>${node.name}</title></circle>
<text x="${num(p.x + 9)}" y="${num(p.y + 4)}" font-size="11">${node.name}</text></a>`;
  });
  return html`<svg role="img" aria-label="entities linked to this one" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" style="background:#fff;border:1px solid #d8dde3">${edges}${nodes}</svg>`;
}

/** One entity: aliases, aspects with claims (event and record time), mentions, links and its neighbourhood. */
export async function entityPage(ctx: PageContext, id: string): Promise<PageResult> {
  const depth = Math.min(3, Math.max(1, Number(ctx.query.get('depth') ?? '2') || 2));
  const entity = await ctx.engine.graph.entity({ agentId: ctx.agentId, entityId: id, includeArchived: true });
  if (!entity) return pageOf('Not found', html`<p>No entity ${id} for this agent.</p>`, 404);
  const around = await ctx.engine.graph.neighbourhood({ agentId: ctx.agentId, entityId: id, depth, limit: 60 });
  const claims = entity.aspects.map(
    (a) => html`<h3>${a.name} <span class="tag">${a.status}</span></h3>
<table><thead><tr><th scope="col">Key</th><th scope="col">Claim</th><th scope="col">Status</th><th scope="col">Valid (event time)</th><th scope="col">Recorded</th><th scope="col">Evidence</th></tr></thead>
<tbody>${a.claims.map(
      (
        cl,
      ) => html`<tr><td>${cl.claimKey}</td><td>${cl.content}</td><td>${cl.status}</td><td>${time(cl.validFrom)} – ${time(cl.validUntil)}</td>
<td>${time(cl.createdAt)}${cl.supersededAt ? html` → superseded ${time(cl.supersededAt)}` : ''}</td>
<td>${cl.evidence.map((e) => html`<div><code>${e.sourceRef}</code>: “${e.quote}”</div>`)}</td></tr>`,
    )}</tbody></table>`,
  );
  return pageOf(
    entity.name,
    html`<p><span class="tag">${entity.type}</span> ${entity.status} · aliases: ${entity.aliases.join(', ') || '—'}</p>
${entity.description ? html`<p>${entity.description}</p>` : ''}
<h2>Around it (depth ${depth})</h2>${around ? neighbourhoodSvg(around) : ''}${around?.truncated ? html`<p class="muted">More entities than shown.</p>` : ''}
<h2>Aspects and claims</h2>${claims}${entity.claimsTruncated ? html`<p class="muted">More claims than shown.</p>` : ''}
<h2>Links</h2><ul>${entity.links.map(
      (l) =>
        html`<li><a href="/entities/${encodeURIComponent(l.sourceId)}">${l.sourceName}</a> ${l.type} <a href="/entities/${encodeURIComponent(l.targetId)}">${l.targetName}</a> (${num(l.strength)}, ${l.status})</li>`,
    )}</ul>
<h2>Mentioned in ${entity.mentionedIn.total} memories</h2><ul>${entity.mentionedIn.items.map(
      (m) => html`<li><a href="/memories/${encodeURIComponent(m.memoryId)}">${m.mentionText ?? m.memoryId}</a></li>`,
    )}</ul>`,
  );
}
