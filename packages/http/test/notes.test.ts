import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

const NOT_FOUND = { error: { code: 'NOT_FOUND', message: 'not found', details: {} } };

describe('working notes over HTTP', () => {
  it('creates, reads, lists, searches, updates, resolves, archives and shows history', async () => {
    const { request, token, clock } = await startServer();
    const t = await token(['bot']);
    const created = await request('POST', '/api/notes', {
      token: t,
      body: {
        title: 'Renewal call prep',
        content: 'Ask Dana about the invoice dispute before the renewal call',
        tags: ['acme', 'sales'],
        linkedEntities: [{ type: 'contact', refId: 'dana-1', label: 'Dana' }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      agentId: 'bot',
      title: 'Renewal call prep',
      status: 'active',
      tags: ['acme', 'sales'],
      linkedEntities: [{ type: 'contact', refId: 'dana-1', label: 'Dana' }],
      resolvedAt: null,
    });
    const id: string = created.body.id;
    clock.advance(1000);
    const other = await request('POST', '/api/notes', {
      token: t,
      body: { title: 'Office plants', content: 'Water the ferns on Monday', tags: ['office'] },
    });
    expect(other.status).toBe(201);

    expect((await request('GET', `/api/notes/${id}`, { token: t })).body).toEqual(created.body);
    const all = await request('GET', '/api/notes', { token: t });
    expect(all.body.items.map((n: { id: string }) => n.id)).toEqual([other.body.id, id]);
    expect(all.body.nextCursor).toBeNull();
    const page = await request('GET', '/api/notes?limit=1', { token: t });
    expect(page.body.items.map((n: { id: string }) => n.id)).toEqual([other.body.id]);
    const next = await request('GET', `/api/notes?limit=1&cursor=${page.body.nextCursor}`, { token: t });
    expect(next.body.items.map((n: { id: string }) => n.id)).toEqual([id]);
    const byTags = await request('GET', '/api/notes?tags=sales,acme', { token: t });
    expect(byTags.body.items.map((n: { id: string }) => n.id)).toEqual([id]);
    const byEntity = await request('GET', '/api/notes?entityType=contact&entityRefId=dana-1', { token: t });
    expect(byEntity.body.items.map((n: { id: string }) => n.id)).toEqual([id]);

    const search = await request('POST', '/api/notes/search', { token: t, body: { query: 'invoice dispute' } });
    expect(search.status).toBe(200);
    expect(search.body.hits[0]).toMatchObject({ note: { id }, score: expect.any(Number) });
    expect(search.body.hits.map((h: { note: { id: string } }) => h.note.id)).not.toContain(other.body.id);

    const updated = await request('PATCH', `/api/notes/${id}`, {
      token: t,
      body: { content: 'Ask Dana about the invoice dispute; she prefers mornings', reason: 'new detail' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id, content: 'Ask Dana about the invoice dispute; she prefers mornings' });

    const resolved = await request('POST', `/api/notes/${id}/resolve`, { token: t, body: { reason: 'call done' } });
    expect(resolved.body).toMatchObject({ id, status: 'resolved', resolvedAt: clock.now() });
    expect((await request('GET', '/api/notes?status=active', { token: t })).body.items).toHaveLength(1);
    const again = await request('POST', `/api/notes/${id}/resolve`, { token: t, body: {} });
    expect([again.status, again.body.error.code]).toEqual([409, 'CONFLICT']);
    // The body (actor, reason) may be left out.
    const archived = await request('POST', `/api/notes/${id}/archive`, { token: t });
    expect(archived.body).toMatchObject({ id, status: 'archived' });
    const edit = await request('PATCH', `/api/notes/${id}`, { token: t, body: { title: 'late' } });
    expect([edit.status, edit.body.error.code]).toEqual([409, 'CONFLICT']);

    const history = await request('GET', `/api/notes/${id}/history`, { token: t });
    expect(history.body.history.map((e: { event: string }) => e.event)).toEqual([
      'created',
      'updated',
      'resolved',
      'archived',
    ]);
    expect(history.body.history[1]).toMatchObject({ reason: 'new detail', actor: 'bot', actorType: 'agent' });
  });

  it("answers another agent's note exactly like a missing one", async () => {
    const { request, token, engine } = await startServer();
    const alice = await token(['alice']);
    const bob = await token(['bob']);
    const { body } = await request('POST', '/api/notes', {
      token: alice,
      body: { title: 'Secret', content: 'alice keeps the spare key under the blue pot' },
    });
    const id: string = body.id;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/notes/${id}`],
      ['GET', `/api/notes/${id}/history`],
      ['PATCH', `/api/notes/${id}`, { title: 'hijacked' }],
      ['POST', `/api/notes/${id}/resolve`, {}],
      ['POST', `/api/notes/${id}/archive`, {}],
    ];
    for (const [method, path, payload] of routes) {
      const foreign = await request(method, path, { token: bob, ...(payload ? { body: payload } : {}) });
      const missing = await request(method, path.replace(id, 'id-424242'), {
        token: bob,
        ...(payload ? { body: payload } : {}),
      });
      expect([path, foreign.status, foreign.text]).toEqual([path, 404, missing.text]);
      expect(foreign.body).toEqual(NOT_FOUND);
    }
    expect((await request('GET', `/api/notes/${id}?agentId=alice`, { token: bob })).body).toEqual(NOT_FOUND);
    expect((await request('GET', '/api/notes', { token: bob })).body.items).toEqual([]);
    const search = await request('POST', '/api/notes/search', { token: bob, body: { query: 'spare key blue pot' } });
    expect(search.body.hits).toEqual([]);
    const recall = await request('POST', '/api/recall', {
      token: bob,
      body: { query: 'spare key blue pot', include: ['notes'] },
    });
    expect(recall.body.results).toEqual([]);
    const note = await engine.notes.get({ agentId: 'alice', id });
    expect([note.title, note.status]).toEqual(['Secret', 'active']);
  });

  it('answers bad input with 400 INVALID_INPUT and creates nothing; a read token cannot write', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const cases: Array<[string, string, unknown?]> = [
      ['POST', '/api/notes', { content: 'no title' }],
      ['POST', '/api/notes', { title: 'x', content: 'y', unknownField: 1 }],
      ['POST', '/api/notes', { title: '   ', content: 'y' }], // the engine's own label rule
      ['POST', '/api/notes', { title: 'x', content: 'y', actor: { id: 'op' } }], // a note's actor object needs its type
      ['POST', '/api/notes', { title: 'x', content: 'y', agentId: 'other' }],
      ['GET', '/api/notes?status=open'],
      ['GET', '/api/notes?limit=0'],
      ['GET', '/api/notes?entityType=contact'],
      ['GET', '/api/notes?cursor=%%%'],
      ['PATCH', '/api/notes/x', { reason: 'nothing to change' }],
      ['POST', '/api/notes/search', { query: '' }],
      ['POST', '/api/notes/search', { query: 'x', limit: 0 }],
      ['POST', '/api/notes/search', { query: 'x', status: 'open' }],
      ['POST', '/api/recall', { query: 'x', include: ['notes', 'files'] }],
      ['POST', '/api/recall', { query: 'x', include: [] }],
      ['POST', '/api/notes/x/resolve', { reason: 42 }],
    ];
    for (const [method, path, payload] of cases) {
      const reply = await request(method, path, { token: t, ...(payload ? { body: payload } : {}) });
      expect([method, path, reply.status]).toEqual([method, path, 400]);
      expect(reply.body).toEqual({
        error: { code: 'INVALID_INPUT', message: expect.any(String), details: expect.any(Object) },
      });
    }
    const notJson = await request('POST', '/api/notes/x/resolve', {
      token: t,
      raw: '{"reason": ',
      headers: { 'content-type': 'application/json' },
    });
    expect([notJson.status, notJson.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    expect((await engine.notes.list({ agentId: 'bot' })).items).toEqual([]);
    const reader = await token(['bot'], ['read']);
    const denied = await request('POST', '/api/notes', { token: reader, body: { title: 'x', content: 'y' } });
    expect([denied.status, denied.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect((await request('GET', '/api/notes', { token: reader })).status).toBe(200);
  });
});

describe('recall with include over HTTP', () => {
  it("returns notes with kind 'note' beside memories only when asked, and the window's fields", async () => {
    const { request, token } = await startServer();
    const t = await token(['bot']);
    const memory = await request('POST', '/api/memories', {
      token: t,
      body: { content: 'The quarterly budget review is owned by Priya' },
    });
    const note = await request('POST', '/api/notes', {
      token: t,
      body: { title: 'Budget review follow-up', content: 'Send Priya the quarterly budget numbers by Friday' },
    });
    const both = await request('POST', '/api/recall', {
      token: t,
      body: { query: 'quarterly budget Priya', include: ['memories', 'notes'], format: true },
    });
    expect(both.status).toBe(200);
    const byKind = Object.fromEntries(both.body.results.map((r: { kind: string; id: string }) => [r.kind, r.id]));
    expect(byKind).toEqual({ memory: memory.body.id, note: note.body.id });
    expect(both.body.results.find((r: { kind: string }) => r.kind === 'note')).toMatchObject({
      title: 'Budget review follow-up',
      status: 'active',
      updatedAt: expect.any(Number),
    });
    expect(both.body.text).toContain('Send Priya the quarterly budget numbers');
    expect(both.body.window).toEqual({ since: expect.any(Number), days: 90, now: expect.any(Number), excluded: 0 });

    const notesOnly = await request('POST', '/api/recall', {
      token: t,
      body: { query: 'quarterly budget Priya', include: ['notes'] },
    });
    expect(notesOnly.body.results.map((r: { kind: string; id: string }) => [r.kind, r.id])).toEqual([
      ['note', note.body.id],
    ]);
    const plain = await request('POST', '/api/recall', { token: t, body: { query: 'quarterly budget Priya' } });
    expect(plain.body.results.map((r: { kind: string }) => r.kind)).toEqual(['memory']);
  });
});
