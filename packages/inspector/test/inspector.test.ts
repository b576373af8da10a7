import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Inspector, startInspector } from '../src/index.js';
import { seededEngine } from './fixtures.js';

let seeded: Awaited<ReturnType<typeof seededEngine>>;
let readOnly: Inspector;
let writable: Inspector;

beforeAll(async () => {
  seeded = await seededEngine();
  readOnly = await startInspector({ engine: seeded.engine, agentId: 'bot' });
  writable = await startInspector({ engine: seeded.engine, agentId: 'bot', writeToken: 'tok-123' });
});
afterAll(async () => {
  await readOnly.close();
  await writable.close();
  await seeded.engine.close();
});

const get = async (base: Inspector, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${base.url}${path}`, { redirect: 'manual', ...init });
  return { status: response.status, headers: response.headers, text: await response.text() };
};

describe('the inspector over HTTP', () => {
  it('serves the search page and recall with its explanation, escaping memory content', async () => {
    const home = await get(readOnly, '/');
    expect(home.status).toBe(200);
    expect(home.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(home.text).toContain('<form method="get" action="/" role="search">');
    const search = await get(readOnly, '/?q=tea+notes');
    expect(search.status).toBe(200);
    expect(search.text).toMatch(/data-testid="result"/);
    expect(search.text).toMatch(/lexical \d/);
    expect(search.text).toContain('related');
    expect(search.text).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(search.text).not.toContain('<script>alert');
    // Another agent's memory is never in this agent's results.
    expect(search.text).not.toContain('secret of another agent');
  });

  it('shows a memory with history and provenance, and answers another agent’s memory as missing', async () => {
    const memory = await get(readOnly, `/memories/${seeded.ids['green tea']}`);
    expect(memory.status).toBe(200);
    expect(memory.text).toContain('green tea: tea notes for the team');
    expect(memory.text).toMatch(/<td>created<\/td>/);
    expect((await get(readOnly, `/memories/${seeded.ids.other}`)).status).toBe(404);
    expect((await get(readOnly, '/memories/nope')).status).toBe(404);
  });

  it('shows the graph around an entity with claims in event and record time, passes, health and the map', async () => {
    const list = await get(readOnly, '/entities');
    expect(list.text).toContain('Northwind');
    const entity = await get(readOnly, `/entities/${seeded.ids.northwind}`);
    expect(entity.status).toBe(200);
    expect(entity.text).toContain('Renews in April');
    expect(entity.text).toMatch(/Renews in March<\/td><td>superseded/);
    expect(entity.text).toContain('<svg role="img" aria-label="entities linked to this one"');
    expect(entity.text).toContain('Dana');
    const passes = await get(readOnly, '/passes');
    expect(passes.text).toContain(`/passes/${seeded.ids.pass}`);
    const pass = await get(readOnly, `/passes/${seeded.ids.pass}`);
    expect(pass.text).toContain('next_evidence');
    expect(pass.text).toContain('apply_operations');
    expect(pass.text).toContain('Created the Fornax team.');
    // The revert preview is read-only; the form needs the token.
    expect(pass.text).toContain('Reverting takes back 1 operations: entity delete ×1');
    expect(pass.text).not.toContain('/revert"');
    // A pass id used through dreaming.apply has no pass record, but its operations can be reverted.
    const applied = await get(readOnly, '/passes/seed');
    expect(applied.status).toBe(200);
    expect(applied.text).toContain('No pass record');
    expect(applied.text).toMatch(
      /Reverting takes back 6 operations: claim delete ×2, link delete ×1, aspect delete ×1, entity delete ×2/,
    );
    // One that only proposed wrote nothing: there is nothing to show.
    expect((await get(readOnly, '/passes/seed-2')).status).toBe(404);
    expect((await get(readOnly, '/passes/nope')).status).toBe(404);
    const health = await get(readOnly, '/health');
    expect(health.text).toContain('words-test');
    const map = await get(readOnly, '/map');
    expect(map.text.match(/data-testid="map-point"/g)?.length).toBe(19);
    expect(map.text).toContain('preference');
    expect((await get(readOnly, '/nowhere')).status).toBe(404);
    expect((await get(readOnly, '/memories/%E0%A4%A')).status).toBe(404);
    expect((await get(readOnly, '/', { method: 'DELETE' })).status).toBe(405);
  });

  it('is read-only without the token: no forms, and writes are refused', async () => {
    const queue = await get(readOnly, '/proposals');
    expect(queue.text).toContain('data-testid="proposal"');
    expect(queue.text).not.toContain('/accept"');
    const post = await get(readOnly, `/proposals/${seeded.ids.proposal}/accept`, { method: 'POST' });
    expect(post.status).toBe(403);
    // A wrong token does not log in.
    expect((await get(writable, '/?token=wrong')).status).toBe(403);
    expect(
      await seeded.engine.dreaming.proposals.get({ agentId: 'bot', proposalId: seeded.ids.proposal ?? '' }),
    ).toMatchObject({
      status: 'pending',
    });
  });

  it('accepts and rejects proposals with the token, through the engine’s audited review', async () => {
    const login = await get(writable, '/proposals?token=tok-123');
    expect(login.status).toBe(303);
    expect(login.headers.get('location')).toBe('/proposals');
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect(cookie).toBe('memory_inspector_token=tok-123');
    const queue = await get(writable, '/proposals', { headers: { cookie } });
    expect(queue.text).toContain(`/proposals/${seeded.ids.proposal}/accept`);
    // A form posted from another site is refused even with the cookie.
    const foreign = await get(writable, `/proposals/${seeded.ids.proposal}/accept`, {
      method: 'POST',
      headers: { cookie, origin: 'http://evil.example' },
    });
    expect(foreign.status).toBe(403);
    const accepted = await get(writable, `/proposals/${seeded.ids.proposal}/accept`, {
      method: 'POST',
      headers: { cookie, origin: writable.url },
    });
    expect(accepted.status).toBe(303);
    const said = (location: string | null, key: string) => new URLSearchParams((location ?? '').split('?')[1]).get(key);
    expect(said(accepted.headers.get('location'), 'notice')).toMatch(/^Accepted: remember_memory wrote memory /);
    expect(
      await seeded.engine.dreaming.proposals.get({ agentId: 'bot', proposalId: seeded.ids.proposal ?? '' }),
    ).toMatchObject({
      status: 'accepted',
      decidedBy: 'inspector',
    });
    const again = await get(writable, `/proposals/${seeded.ids.proposal}/accept`, {
      method: 'POST',
      headers: { cookie },
    });
    expect(said(again.headers.get('location'), 'error')).toMatch(/already accepted/);
    const rejected = await get(writable, `/proposals/${seeded.ids.proposal2}/reject`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ reason: 'they use the portal' }).toString(),
    });
    expect(said(rejected.headers.get('location'), 'notice')).toBe('Rejected.');
    expect(
      await seeded.engine.dreaming.proposals.get({ agentId: 'bot', proposalId: seeded.ids.proposal2 ?? '' }),
    ).toMatchObject({ status: 'rejected', decisionReason: 'they use the portal' });
    // Reverting the pass from its page.
    const passPage = await get(writable, `/passes/${seeded.ids.pass}`, { headers: { cookie } });
    expect(passPage.text).toContain(`action="/passes/${seeded.ids.pass}/revert"`);
    const reverted = await get(writable, `/passes/${seeded.ids.pass}/revert`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ reason: 'wrong team' }).toString(),
    });
    expect(said(reverted.headers.get('location'), 'notice')).toBe('Reverted: 1 operations, 1 rows restored.');
    expect((await seeded.engine.graph.entities({ agentId: 'bot', query: 'fornax' })).items).toEqual([]);
    const after = await get(writable, `/passes/${seeded.ids.pass}`, { headers: { cookie } });
    expect(after.text).toMatch(/was already reverted/);
    const shown = await get(writable, `/proposals?${new URLSearchParams({ error: '<b>x</b>' }).toString()}`, {
      headers: { cookie },
    });
    expect(shown.text).toContain('role="alert" class="error">&lt;b&gt;x&lt;/b&gt;');
  });
});
