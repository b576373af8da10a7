import { html, num, time } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

/** Dreaming passes, newest first, paged. */
export async function passesPage(ctx: PageContext): Promise<PageResult> {
  const cursor = ctx.query.get('cursor') || undefined;
  const page = await ctx.engine.dreaming.passes.list({
    agentId: ctx.agentId,
    limit: 50,
    ...(cursor ? { cursor } : {}),
  });
  return pageOf(
    'Dreaming passes',
    html`<table><thead><tr><th scope="col">Started</th><th scope="col">Trigger</th><th scope="col">Mode</th><th scope="col">Status</th><th scope="col">Stop</th><th scope="col">Tool calls</th><th scope="col">Applied / rejected / proposals</th><th scope="col">Tokens in / out</th></tr></thead>
<tbody>${page.items.map(
      (
        p,
      ) => html`<tr><td><a href="/passes/${encodeURIComponent(p.id)}">${time(p.startedAt)}</a></td><td>${p.trigger}</td><td>${p.mode}</td><td>${p.status}</td><td>${p.stopReason ?? '—'}</td><td>${p.toolCallCount}</td>
<td>${p.mutations.applied ?? 0} / ${p.mutations.rejected ?? 0} / ${p.mutations.proposals ?? 0}</td><td>${p.usage.inputTokens ?? 0} / ${p.usage.outputTokens ?? 0}</td></tr>`,
    )}</tbody></table>
${page.nextCursor ? html`<p><a href="/passes?cursor=${encodeURIComponent(page.nextCursor)}">Older passes</a></p>` : ''}`,
  );
}

/** One pass: its record, the evidence it was offered, and every tool call in order. */
export async function passPage(ctx: PageContext, id: string): Promise<PageResult> {
  const pass = await ctx.engine.dreaming.passes.get({ agentId: ctx.agentId, passId: id });
  if (!pass) return pageOf('Not found', html`<p>No pass ${id} for this agent.</p>`, 404);
  return pageOf(
    `Pass ${pass.id}`,
    html`<p>${pass.trigger} · ${pass.mode} · <strong>${pass.status}</strong> · stop: ${pass.stopReason ?? '—'} · ${time(pass.startedAt)} → ${time(pass.finishedAt)}</p>
${pass.summary ? html`<pre>${pass.summary}</pre>` : ''}${pass.error ? html`<p class="error">${pass.error}</p>` : ''}
<h2>Evidence window</h2><ul>${pass.evidenceWindow.map((s) => html`<li><code>${s.sourceRef}</code> characters ${s.from}–${s.to} of ${s.total}</li>`)}</ul>
<h2>Tool calls</h2>
<table><thead><tr><th scope="col">#</th><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Result</th><th scope="col">ms</th></tr></thead>
<tbody>${pass.toolCalls.map(
      (c) =>
        html`<tr><td>${c.ordinal}</td><td>${c.tool} ${c.ok ? '' : html`<span class="error">(error)</span>`}</td><td><pre>${c.arguments}</pre></td><td><pre>${c.result}</pre></td><td>${num(c.durationMs, 1)}</td></tr>`,
    )}</tbody></table>`,
  );
}
