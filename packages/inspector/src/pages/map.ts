import type { MapPoint } from '@memory/engine';
import { html, num } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

// A qualitative palette that stays apart for the colour-blind (Okabe-Ito).
const PALETTE = ['#0072b2', '#e69f00', '#009e73', '#d55e00', '#cc79a7', '#56b4e9', '#f0e442', '#000000'];
const SIZE = 640;
const PAD = 16;

/** The embedding map: an SVG of the projection, one link per memory, coloured by type or category. */
export async function mapPage(ctx: PageContext): Promise<PageResult> {
  const by = ctx.query.get('color') === 'category' ? 'category' : 'type';
  const map = await ctx.engine.embeddingMap({ agentId: ctx.agentId, limit: 2000 });
  if (map.points.length === 0)
    return pageOf('Embedding map', html`<p data-testid="map-empty">No map: ${map.reason ?? 'nothing to show'}.</p>`);
  const key = (p: MapPoint) => (by === 'type' ? p.type : (p.category ?? '(none)'));
  const groups = [...new Set(map.points.map(key))].sort();
  const colour = new Map(groups.map((g, i) => [g, PALETTE[i % PALETTE.length] ?? '#000']));
  const xs = map.points.map((p) => p.x);
  const ys = map.points.map((p) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = (v: number, lo: number, hi: number) => PAD + ((v - lo) / (hi - lo || 1)) * (SIZE - 2 * PAD);
  const dots = map.points.map(
    (p) =>
      html`<a href="/memories/${encodeURIComponent(p.id)}"><circle data-testid="map-point" cx="${num(scale(p.x, minX, maxX), 1)}" cy="${num(scale(p.y, minY, maxY), 1)}" r="5" fill="${colour.get(key(p)) ?? '#000'}" fill-opacity="0.8"><title>${key(p)}: ${p.preview}</title></circle></a>`,
  );
  return pageOf(
    'Embedding map',
    html`<p>${map.points.length} memories · model <code>${map.model}</code> · UMAP ${num(map.computedMs, 0)} ms${map.cached ? ' (cached)' : ''} ·
colour by <a href="/map?color=type"${by === 'type' ? html` aria-current="page"` : ''}>type</a> or <a href="/map?color=category"${by === 'category' ? html` aria-current="page"` : ''}>category</a></p>
<ul aria-label="legend">${groups.map((g) => html`<li><svg width="12" height="12" aria-hidden="true"><circle cx="6" cy="6" r="5" fill="${colour.get(g) ?? '#000'}"/></svg> ${g}</li>`)}</ul>
<svg id="map" role="img" aria-label="memories projected by meaning: nearby points are similar; each opens its memory" width="${SIZE}" height="${SIZE}" viewBox="0 0 ${SIZE} ${SIZE}" style="background:#fff;border:1px solid #d8dde3">${dots}</svg>`,
  );
}
