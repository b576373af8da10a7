import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

const NOT_FOUND = { error: { code: 'NOT_FOUND', message: 'not found', details: {} } };
const CATEGORIES = '/api/registry/categories';

describe('the entity registry over HTTP', () => {
  it('creates, links, reads, updates, previews a delete, merges, deletes and shows history', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const finance = await request('POST', CATEGORIES, {
      token: t,
      body: { name: 'Personal Finance', description: 'Money matters', aliases: ['money'] },
    });
    expect(finance.status).toBe(201);
    expect(finance.body).toMatchObject({ agentId: 'bot', name: 'Personal Finance', aliases: ['money'] });
    const fid: string = finance.body.id;
    const taken = await request('POST', CATEGORIES, { token: t, body: { name: 'personal finance' } });
    expect([taken.status, taken.body.error.code]).toEqual([409, 'CONFLICT']);

    const memory = await request('POST', '/api/memories', { token: t, body: { content: 'Rent is due on the 1st' } });
    const note = await request('POST', '/api/notes', { token: t, body: { title: 'Taxes', content: 'File by April' } });
    const objects = [
      { kind: 'memory', id: memory.body.id },
      { kind: 'note', id: note.body.id },
      { kind: 'host', type: 'account', refId: 'acct-9' },
    ];
    for (const object of objects) {
      const linked = await request('POST', `${CATEGORIES}/${fid}/link`, { token: t, body: { object } });
      expect([linked.status, linked.body]).toEqual([200, { linked: true }]);
    }

    const list = await request('GET', CATEGORIES, { token: t });
    expect(list.body.categories).toEqual([expect.objectContaining({ id: fid, objectCount: 3 })]);
    const detail = await request('GET', `${CATEGORIES}/${fid}`, { token: t });
    expect(detail.body.counts).toMatchObject({ memory: 1, note: 1, host: 1, document: 0 });
    expect(detail.body.objects.map((o: { kind: string }) => o.kind).sort()).toEqual(['host', 'memory', 'note']);
    const notesOnly = await request('GET', `${CATEGORIES}/${fid}/objects?kind=note`, { token: t });
    expect(notesOnly.body.objects).toEqual([
      expect.objectContaining({ kind: 'note', id: note.body.id, state: 'live', preview: 'Taxes' }),
    ]);
    const of = await request('POST', '/api/registry/object-categories', {
      token: t,
      body: { object: { kind: 'memory', id: memory.body.id } },
    });
    expect(of.body.categories.map((c: { id: string }) => c.id)).toEqual([fid]);

    const renamed = await request('PATCH', `${CATEGORIES}/${fid}`, {
      token: t,
      body: { name: 'Finances', description: null, reason: 'shorter' },
    });
    expect(renamed.body).toMatchObject({ id: fid, name: 'Finances', description: null });
    const unlinked = await request('POST', `${CATEGORIES}/${fid}/unlink`, { token: t, body: { object: objects[2] } });
    expect(unlinked.body).toEqual({ unlinked: true });

    // Merge a second category into the first: its links move over.
    const bills = await request('POST', CATEGORIES, { token: t, body: { name: 'Bills' } });
    await request('POST', `${CATEGORIES}/${bills.body.id}/link`, { token: t, body: { object: objects[0] } });
    const merged = await request('POST', `${CATEGORIES}/${bills.body.id}/merge`, {
      token: t,
      body: { intoId: fid, reason: 'same thing' },
    });
    expect(merged.body).toMatchObject({ category: { id: fid }, moved: 0, alreadyLinked: 1 });
    expect(merged.body.category.aliases).toContain('Bills');
    expect((await request('GET', `${CATEGORIES}/${bills.body.id}`, { token: t })).status).toBe(404);

    const preview = await request('GET', `${CATEGORIES}/${fid}/delete-preview`, { token: t });
    expect(preview.body.remove).toEqual(expect.arrayContaining(objects.slice(0, 2)));
    expect(preview.body.remove).toHaveLength(2);
    expect((await engine.getMemory({ agentId: 'bot', id: memory.body.id }))?.deleted).toBe(false);
    const deleted = await request('POST', `${CATEGORIES}/${fid}/delete`, { token: t, body: { reason: 'done' } });
    expect(deleted.body.remove).toHaveLength(2);
    expect((await request('GET', `/api/notes/${note.body.id}`, { token: t })).body.status).toBe('archived');
    expect((await request('GET', `/api/memories/${memory.body.id}`, { token: t })).status).toBe(404);

    const history = await request('GET', `${CATEGORIES}/${fid}/history`, { token: t });
    expect(history.status).toBe(200);
    const actions: string[] = history.body.history.map((e: { action: string }) => e.action);
    expect(actions).toEqual(['created', 'linked', 'linked', 'linked', 'updated', 'unlinked', 'merged', 'deleted']);
    expect(history.body.history.some((e: { reason: string | null }) => e.reason === 'shorter')).toBe(true);
  });

  it("answers another agent's category exactly like a missing one", async () => {
    const { request, token } = await startServer();
    const alice = await token(['alice']);
    const bob = await token(['bob']);
    const { body } = await request('POST', CATEGORIES, { token: alice, body: { name: 'Health' } });
    const id: string = body.id;
    const memory = await request('POST', '/api/memories', { token: alice, body: { content: 'alice sees Dr. K' } });
    const mine = await request('POST', CATEGORIES, { token: bob, body: { name: 'Mine' } });
    const object = { kind: 'memory', id: memory.body.id };
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `${CATEGORIES}/${id}`],
      ['GET', `${CATEGORIES}/${id}/objects`],
      ['GET', `${CATEGORIES}/${id}/history`],
      ['GET', `${CATEGORIES}/${id}/delete-preview`],
      ['PATCH', `${CATEGORIES}/${id}`, { name: 'hijacked' }],
      ['POST', `${CATEGORIES}/${id}/link`, { object: { kind: 'host', type: 't', refId: 'r' } }],
      ['POST', `${CATEGORIES}/${id}/unlink`, { object: { kind: 'host', type: 't', refId: 'r' } }],
      ['POST', `${CATEGORIES}/${id}/delete`, {}],
      ['POST', `${CATEGORIES}/${id}/merge`, { intoId: mine.body.id }],
      ['POST', `${CATEGORIES}/${mine.body.id}/merge`, { intoId: id }],
    ];
    for (const [method, path, payload] of routes) {
      const foreign = await request(method, path, { token: bob, ...(payload ? { body: payload } : {}) });
      const missing = await request(method, path.replace(id, 'id-424242'), {
        token: bob,
        ...(payload ? { body: payload } : {}),
      });
      expect([method, path, foreign.status, foreign.text]).toEqual([method, path, 404, missing.text]);
      expect(foreign.body).toEqual(NOT_FOUND);
    }
    // bob cannot file alice's memory in his own category either.
    const link = await request('POST', `${CATEGORIES}/${mine.body.id}/link`, { token: bob, body: { object } });
    expect([link.status, link.body]).toEqual([404, NOT_FOUND]);
    expect(
      (await request('GET', CATEGORIES, { token: bob })).body.categories.map((c: { name: string }) => c.name),
    ).toEqual(['Mine']);
    expect((await request('GET', `${CATEGORIES}?agentId=alice`, { token: bob })).body).toEqual(NOT_FOUND);
    expect((await request('GET', `${CATEGORIES}/${id}`, { token: alice })).body).toMatchObject({ name: 'Health' });
  });

  it('answers bad input with 400 INVALID_INPUT', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const { body } = await request('POST', CATEGORIES, { token: t, body: { name: 'Travel' } });
    const cases: Array<[string, string, unknown?]> = [
      ['POST', CATEGORIES, {}],
      ['POST', CATEGORIES, { name: '!!!' }], // the engine's rule: a letter or digit
      ['POST', CATEGORIES, { name: 'x', extra: true }],
      ['GET', `${CATEGORIES}?limit=0`],
      ['GET', `${CATEGORIES}/${body.id}?kind=photo`],
      ['PATCH', `${CATEGORIES}/${body.id}`, { reason: 'no change' }],
      ['POST', `${CATEGORIES}/${body.id}/link`, { object: { kind: 'photo', id: 'x' } }],
      ['POST', `${CATEGORIES}/${body.id}/link`, { object: { kind: 'host', type: 't' } }],
      ['POST', `${CATEGORIES}/${body.id}/merge`, { intoId: body.id }],
      ['GET', `${CATEGORIES}/${body.id}/delete-preview?force=yes`],
      ['POST', '/api/registry/object-categories', { object: { kind: 'memory' } }],
    ];
    for (const [method, path, payload] of cases) {
      const reply = await request(method, path, { token: t, ...(payload ? { body: payload } : {}) });
      expect([method, path, reply.status]).toEqual([method, path, 400]);
      expect(reply.body.error.code).toBe('INVALID_INPUT');
    }
    expect((await engine.registry.list({ agentId: 'bot' })).map((c) => c.name)).toEqual(['Travel']);
  });
});
