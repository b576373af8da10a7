import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

describe('memories over HTTP', () => {
  it('remembers, reads, lists, modifies, forgets, recovers and shows history', async () => {
    const { request, token } = await startServer();
    const t = await token(['bot']);
    const created = await request('POST', '/api/memories', {
      token: t,
      body: { content: 'Alice prefers green tea', type: 'preference', tags: ['drinks'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: expect.any(String), deduped: false });
    const id: string = created.body.id;
    const again = await request('POST', '/api/memories', { token: t, body: { content: 'Alice prefers green tea' } });
    expect(again.body).toMatchObject({ id, deduped: true });

    const got = await request('GET', `/api/memories/${id}`, { token: t });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id, agentId: 'bot', content: 'Alice prefers green tea', tags: ['drinks'] });

    const modified = await request('PATCH', `/api/memories/${id}`, {
      token: t,
      body: { content: 'Alice prefers oolong tea', reason: 'she said so' },
    });
    expect(modified.status).toBe(200);
    expect(modified.body).toMatchObject({ id, content: 'Alice prefers oolong tea' });

    const forgotten = await request('POST', `/api/memories/${id}/forget`, { token: t, body: { reason: 'asked' } });
    expect(forgotten.status).toBe(200);
    expect((await request('GET', `/api/memories/${id}`, { token: t })).status).toBe(404);
    const deleted = await request('GET', `/api/memories/${id}?includeDeleted=true`, { token: t });
    expect(deleted.body).toMatchObject({ id, deleted: true });

    const recovered = await request('POST', `/api/memories/${id}/recover`, { token: t, body: {} });
    expect(recovered.status).toBe(200);
    expect(recovered.body).toMatchObject({ id, deleted: false });

    const history = await request('GET', `/api/memories/${id}/history`, { token: t });
    expect(history.body.history.map((h: { event: string }) => h.event)).toEqual([
      'created',
      'updated',
      'deleted',
      'recovered',
    ]);
  });

  it('lists a scope page by page with the cursor', async () => {
    const { request, token, clock } = await startServer();
    const t = await token(['bot']);
    for (let i = 0; i < 3; i++) {
      await request('POST', '/api/memories', { token: t, body: { content: `fact ${i}` } });
      clock.advance(1);
    }
    const first = await request('GET', '/api/memories?limit=2', { token: t });
    expect(first.body.memories.map((m: { content: string }) => m.content)).toEqual(['fact 2', 'fact 1']);
    const second = await request('GET', `/api/memories?limit=2&cursor=${first.body.nextCursor}`, { token: t });
    expect(second.body).toEqual({ memories: [expect.objectContaining({ content: 'fact 0' })], nextCursor: null });
  });

  it('recalls within the scope, with the formatted text on request', async () => {
    const { request, token } = await startServer();
    const t = await token(['bot']);
    await request('POST', '/api/memories', { token: t, body: { content: 'The office wifi password is hunter2' } });
    await request('POST', '/api/memories', { token: t, body: { content: 'Lunch is at noon on Fridays' } });
    const recall = await request('POST', '/api/recall', { token: t, body: { query: 'wifi password', format: true } });
    expect(recall.status).toBe(200);
    expect(recall.body.results[0]).toMatchObject({ content: 'The office wifi password is hunter2' });
    expect(recall.body.text).toContain('hunter2');
    const plain = await request('POST', '/api/recall', { token: t, body: { query: 'wifi password' } });
    expect(plain.body.text).toBeUndefined();
  });

  it('answers bad input with 400 and the stable error body, changing nothing', async () => {
    const { request, token, engine } = await startServer();
    const t = await token(['bot']);
    const cases: Array<[string, string, { body?: unknown; raw?: string; headers?: Record<string, string> }]> = [
      ['POST', '/api/memories', { raw: '{"content": ', headers: { 'content-type': 'application/json' } }],
      ['POST', '/api/memories', { raw: '' }],
      ['POST', '/api/memories', { body: { content: 42 } }],
      ['POST', '/api/memories', { body: { content: 'x', unknownField: true } }],
      ['POST', '/api/memories', { body: { content: '   ' } }], // the engine's own content rule
      ['POST', '/api/memories', { body: { content: 'ok', agentId: 'other' } }], // scope comes from the query only
      ['POST', '/api/memories', { body: { content: 'ok', importance: 7 } }],
      ['GET', '/api/memories?limit=0', {}],
      ['GET', '/api/memories?limit=abc', {}],
      ['GET', '/api/memories?includeDeleted=yes', {}],
      ['GET', '/api/memories?cursor=bogus', {}],
      ['PATCH', '/api/memories/x', { body: { reason: 'r' } }], // modify needs a change
      ['POST', '/api/recall', { body: { query: '' } }],
      ['POST', '/api/recall', { body: { query: 'q', limit: 1.5 } }],
      ['GET', '/api/memories/%20bad%20id', {}],
    ];
    for (const [method, path, options] of cases) {
      const reply = await request(method, path, { token: t, ...options });
      expect([method, path, reply.status]).toEqual([method, path, 400]);
      expect(reply.body).toEqual({
        error: { code: 'INVALID_INPUT', message: expect.any(String), details: expect.any(Object) },
      });
    }
    expect((await engine.list({ agentId: 'bot' })).memories).toEqual([]);
  });

  it('maps engine errors to statuses: pinned 409, recovering a live memory 409, unknown id 404', async () => {
    const { request, token } = await startServer();
    const t = await token(['bot']);
    const { body } = await request('POST', '/api/memories', {
      token: t,
      body: { content: 'pinned fact', pinned: true },
    });
    const pinned = await request('POST', `/api/memories/${body.id}/forget`, { token: t, body: { reason: 'r' } });
    expect(pinned.status).toBe(409);
    expect(pinned.body.error.code).toBe('PINNED');
    const live = await request('POST', `/api/memories/${body.id}/recover`, { token: t, body: {} });
    expect([live.status, live.body.error.code]).toEqual([409, 'CONFLICT']);
    const forced = await request('POST', `/api/memories/${body.id}/forget`, {
      token: t,
      body: { reason: 'r', force: true },
    });
    expect(forced.status).toBe(200);
    for (const [method, path, payload] of [
      ['GET', '/api/memories/id-999999', undefined],
      ['PATCH', '/api/memories/id-999999', { reason: 'r', importance: 0.2 }],
      ['POST', '/api/memories/id-999999/forget', { reason: 'r' }],
      ['GET', '/api/memories/id-999999/history', undefined],
    ] as const) {
      const reply = await request(method, path, { token: t, ...(payload ? { body: payload } : {}) });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'not found', details: {} } });
    }
  });
});
