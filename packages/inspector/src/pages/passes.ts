import { isMemoryError, type RevertResult } from '@memory/engine';
import { type Html, html, num, time } from '../html.js';
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

/** What reverting the pass would do (a preview writes nothing), and the form to do it with write access. */
async function revertSection(ctx: PageContext, passId: string): Promise<Html> {
  let preview: RevertResult;
  try {
    preview = await ctx.engine.dreaming.revert({ agentId: ctx.agentId, passId });
  } catch (error) {
    if (isMemoryError(error) && error.code === 'CONFLICT') return html`<p>${error.message}.</p>`;
    throw error;
  }
  if (preview.operations.length === 0) return html`<p class="muted">The pass wrote nothing.</p>`;
  const actions = new Map<string, number>();
  for (const row of preview.rows)
    actions.set(`${row.kind} ${row.action}`, (actions.get(`${row.kind} ${row.action}`) ?? 0) + 1);
  return html`<p>Reverting takes back ${preview.operations.length} operations: ${[...actions].map(([a, n]) => `${a} ×${n}`).join(', ')}.</p>
${preview.conflicts.length > 0 ? html`<ul class="error" data-testid="revert-conflicts">${preview.conflicts.map((c) => html`<li>${c.reason}</li>`)}</ul>` : ''}
${
  ctx.canWrite && preview.conflicts.length === 0
    ? html`<form method="post" action="/passes/${encodeURIComponent(passId)}/revert"><label for="reason">Reason</label><input id="reason" name="reason" required><button type="submit">Revert this pass</button></form>`
    : ''
}`;
}

/** Reverts a pass, then returns to its page with what happened. */
export async function revertPass(ctx: PageContext, passId: string, form: URLSearchParams): Promise<PageResult> {
  const back = (key: 'notice' | 'error', text: string): PageResult => ({
    kind: 'redirect',
    location: `/passes/${encodeURIComponent(passId)}?${new URLSearchParams({ [key]: text }).toString()}`,
  });
  try {
    const result = await ctx.engine.dreaming.revert({
      agentId: ctx.agentId,
      passId,
      apply: true,
      actor: { id: 'inspector' },
      reason: form.get('reason')?.trim() || 'reverted in the inspector',
    });
    return back('notice', `Reverted: ${result.operations.length} operations, ${result.rows.length} rows restored.`);
  } catch (error) {
    if (isMemoryError(error)) return back('error', error.message);
    throw error;
  }
}

/** One pass: its record, the evidence it was offered, and every tool call in order. */
export async function passPage(ctx: PageContext, id: string): Promise<PageResult> {
  const pass = await ctx.engine.dreaming.passes.get({ agentId: ctx.agentId, passId: id });
  const notice = ctx.query.get('notice');
  const error = ctx.query.get('error');
  const said = html`${notice ? html`<p role="status" class="ok">${notice}</p>` : ''}${error ? html`<p role="alert" class="error">${error}</p>` : ''}`;
  if (!pass) {
    // Operations applied through dreaming.apply with a pass id have provenance but no pass record.
    try {
      const section = await revertSection(ctx, id);
      return pageOf(
        `Pass ${id}`,
        html`${said}<p class="muted">No pass record: operations applied with this pass id through <code>dreaming.apply</code>.</p><h2>Revert</h2>${section}`,
      );
    } catch (failure) {
      if (isMemoryError(failure) && failure.code === 'NOT_FOUND')
        return pageOf('Not found', html`<p>No pass ${id} for this agent.</p>`, 404);
      throw failure;
    }
  }
  return pageOf(
    `Pass ${pass.id}`,
    html`${said}
<p>${pass.trigger} · ${pass.mode} · <strong>${pass.status}</strong> · stop: ${pass.stopReason ?? '—'} · ${time(pass.startedAt)} → ${time(pass.finishedAt)}</p>
${pass.summary ? html`<pre>${pass.summary}</pre>` : ''}${pass.error ? html`<p class="error">${pass.error}</p>` : ''}
<h2>Evidence window</h2><ul>${pass.evidenceWindow.map(
      (s) =>
        html`<li>${s.sourceRef.startsWith('memory:') ? html`<a href="/memories/${encodeURIComponent(s.sourceRef.slice(7))}"><code>${s.sourceRef}</code></a>` : html`<code>${s.sourceRef}</code>`} characters ${s.from}–${s.to} of ${s.total}</li>`,
    )}</ul>
<h2>Tool calls</h2>
<table><thead><tr><th scope="col">#</th><th scope="col">Tool</th><th scope="col">Arguments</th><th scope="col">Result</th><th scope="col">ms</th></tr></thead>
<tbody>${pass.toolCalls.map(
      (c) =>
        html`<tr><td>${c.ordinal}</td><td>${c.tool} ${c.ok ? '' : html`<span class="error">(error)</span>`}</td><td><pre>${c.arguments}</pre></td><td><pre>${c.result}</pre></td><td>${num(c.durationMs, 1)}</td></tr>`,
    )}</tbody></table>
<h2>Revert</h2>${await revertSection(ctx, pass.id)}`,
  );
}
