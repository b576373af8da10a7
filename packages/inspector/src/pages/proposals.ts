import { isMemoryError } from '@memory/engine';
import { html, time } from '../html.js';
import { type PageContext, type PageResult, pageOf } from './context.js';

const STATUSES = new Set(['pending', 'accepted', 'rejected', 'all']);

/** The review queue: proposals with the operation each would apply; accept and reject with write access. */
export async function proposalsPage(ctx: PageContext): Promise<PageResult> {
  const wanted = ctx.query.get('status') ?? 'pending';
  const status = (STATUSES.has(wanted) ? wanted : 'pending') as 'pending' | 'accepted' | 'rejected' | 'all';
  const cursor = ctx.query.get('cursor') || undefined;
  const page = await ctx.engine.dreaming.proposals.list({
    agentId: ctx.agentId,
    status,
    limit: 50,
    ...(cursor ? { cursor } : {}),
  });
  const notice = ctx.query.get('notice');
  const error = ctx.query.get('error');
  const items = page.items.map(
    (
      p,
    ) => html`<li data-testid="proposal"><h2>${p.operation.operation} <span class="tag">${p.route}</span> <span class="tag">${p.status}</span></h2>
<p class="muted">proposed ${time(p.createdAt)} by ${p.actor}${p.passId ? html` in pass <a href="/passes/${encodeURIComponent(p.passId)}">${p.passId}</a>` : ''}${p.reason ? html` · “${p.reason}”` : ''}</p>
${p.contradiction ? html`<p>Contradicts claim <code>${p.contradiction.claimId}</code> (${p.contradiction.status}).</p>` : ''}
<pre>${JSON.stringify(p.operation, null, 2)}</pre>
${p.decidedAt ? html`<p>Decided ${time(p.decidedAt)} by ${p.decidedBy}${p.decisionReason ? html`: ${p.decisionReason}` : ''}</p>` : ''}
${
  ctx.canWrite && p.status === 'pending'
    ? html`<form class="inline" method="post" action="/proposals/${encodeURIComponent(p.id)}/accept"><button type="submit">Accept</button></form>
<form class="inline" method="post" action="/proposals/${encodeURIComponent(p.id)}/reject"><label for="reason-${p.id}">Reason</label><input id="reason-${p.id}" name="reason" required><button type="submit">Reject</button></form>`
    : ''
}</li>`,
  );
  return pageOf(
    'Proposals',
    html`${notice ? html`<p role="status" class="ok">${notice}</p>` : ''}${error ? html`<p role="alert" class="error">${error}</p>` : ''}
<nav class="pages" aria-label="proposal status">${['pending', 'accepted', 'rejected', 'all'].map((s) => html`<a href="/proposals?status=${s}"${s === status ? html` aria-current="page"` : ''}>${s}</a>`)}</nav>
${page.items.length === 0 ? html`<p>No ${status === 'all' ? '' : status} proposals.</p>` : html`<ol>${items}</ol>`}
${page.nextCursor ? html`<p><a href="/proposals?${new URLSearchParams({ status, cursor: page.nextCursor }).toString()}">More</a></p>` : ''}
${ctx.canWrite ? '' : html`<p class="muted">Read-only: start the inspector with a write token to accept or reject.</p>`}`,
  );
}

/** Accepts or rejects a proposal, then returns to the queue with what happened. */
export async function decideProposal(
  ctx: PageContext,
  id: string,
  decision: 'accept' | 'reject',
  form: URLSearchParams,
): Promise<PageResult> {
  const back = (key: 'notice' | 'error', text: string): PageResult => ({
    kind: 'redirect',
    location: `/proposals?${new URLSearchParams({ [key]: text }).toString()}`,
  });
  try {
    if (decision === 'accept') {
      const result = await ctx.engine.dreaming.proposals.accept({
        agentId: ctx.agentId,
        proposalId: id,
        actor: { id: 'inspector' },
      });
      return back('notice', `Accepted: ${result.operation} wrote ${result.targetType} ${result.targetId}.`);
    }
    await ctx.engine.dreaming.proposals.reject({
      agentId: ctx.agentId,
      proposalId: id,
      reason: form.get('reason')?.trim() || 'rejected in the inspector',
      actor: { id: 'inspector' },
    });
    return back('notice', 'Rejected.');
  } catch (error) {
    if (isMemoryError(error)) return back('error', error.message);
    throw error;
  }
}
