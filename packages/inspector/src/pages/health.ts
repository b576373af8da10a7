import { html } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

/** Queue health per job type, worker states and providers, from the engine's diagnostics. */
export async function healthPage(ctx: PageContext): Promise<PageResult> {
  const d = await ctx.engine.diagnostics();
  const rows = d.queue.map(
    (q) =>
      html`<tr>${Object.values(q).map((v) => html`<td>${typeof v === 'object' ? JSON.stringify(v) : String(v)}</td>`)}</tr>`,
  );
  const heads = d.queue[0] ? Object.keys(d.queue[0]) : ['jobType'];
  return pageOf(
    'Queue health',
    html`<p>Background work ${d.started ? 'started' : 'not started in this process'}.</p>
<table><thead><tr>${heads.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead><tbody>${rows}</tbody></table>
<h2>Providers</h2><pre>${JSON.stringify(d.providers, null, 2)}</pre>
<h2>Workers</h2><pre>${JSON.stringify(d.workers, null, 2)}</pre>`,
  );
}
