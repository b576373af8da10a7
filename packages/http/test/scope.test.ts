import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

const NOT_FOUND = { error: { code: 'NOT_FOUND', message: 'not found', details: {} } };

describe('token scope', () => {
  it("another agent's object and a missing one get the same 404, byte for byte", async () => {
    const { request, token } = await startServer();
    const alice = await token(['alice']);
    const bob = await token(['bob']);
    const { body } = await request('POST', '/api/memories', { token: alice, body: { content: 'alice secret' } });
    const id: string = body.id;
    const routes: Array<[string, string, unknown?]> = [
      ['GET', `/api/memories/${id}`],
      ['GET', `/api/memories/${id}/history`],
      ['PATCH', `/api/memories/${id}`, { reason: 'r', importance: 0.1 }],
      ['POST', `/api/memories/${id}/forget`, { reason: 'r' }],
      ['POST', `/api/memories/${id}/recover`, {}],
    ];
    for (const [method, path, payload] of routes) {
      const foreign = await request(method, path, { token: bob, ...(payload ? { body: payload } : {}) });
      const missing = await request(method, path.replace(id, 'id-424242'), {
        token: bob,
        ...(payload ? { body: payload } : {}),
      });
      expect([path, foreign.status, foreign.text]).toEqual([path, 404, missing.text]);
      expect(foreign.body).toEqual(NOT_FOUND);
      expect([...foreign.headers.keys()].sort()).toEqual([...missing.headers.keys()].sort());
    }
    // Naming alice's scope explicitly is outside bob's token: the same 404, before anything is read.
    for (const path of [`/api/memories/${id}?agentId=alice`, '/api/memories?agentId=alice']) {
      const reply = await request('GET', path, { token: bob });
      expect([reply.status, reply.body]).toEqual([404, NOT_FOUND]);
    }
    const recall = await request('POST', '/api/recall?agentId=alice', { token: bob, body: { query: 'secret' } });
    expect([recall.status, recall.body]).toEqual([404, NOT_FOUND]);
    // bob's own scope holds nothing of alice's.
    expect(
      (await request('POST', '/api/recall', { token: bob, body: { query: 'alice secret' } })).body.results,
    ).toEqual([]);
    expect((await request('GET', '/api/memories', { token: bob })).body.memories).toEqual([]);
    // The memory is untouched.
    expect((await request('GET', `/api/memories/${id}`, { token: alice })).body.content).toBe('alice secret');
  });

  it('a token for several agents names one with agentId, and only its own', async () => {
    const { request, token } = await startServer();
    const both = await token(['a', 'b']);
    const missing = await request('POST', '/api/memories', { token: both, body: { content: 'x' } });
    expect([missing.status, missing.body.error.code]).toEqual([400, 'INVALID_INPUT']);
    const inA = await request('POST', '/api/memories?agentId=a', { token: both, body: { content: 'for a' } });
    expect(inA.status).toBe(201);
    expect((await request('GET', `/api/memories/${inA.body.id}?agentId=a`, { token: both })).status).toBe(200);
    expect((await request('GET', `/api/memories/${inA.body.id}?agentId=b`, { token: both })).status).toBe(404);
    expect((await request('GET', '/api/memories?agentId=c', { token: both })).status).toBe(404);
  });

  it('checks permissions after the scope: 403 inside it, 404 outside it', async () => {
    const { request, token } = await startServer();
    const writer = await token(['a'], ['write']);
    const reader = await token(['a'], ['read']);
    const created = await request('POST', '/api/memories', { token: writer, body: { content: 'note' } });
    expect(created.status).toBe(201);
    const denied = await request('POST', '/api/memories', { token: reader, body: { content: 'nope' } });
    expect(denied.status).toBe(403);
    expect(denied.body).toEqual({
      error: { code: 'FORBIDDEN', message: expect.any(String), details: { permission: 'write' } },
    });
    expect((await request('GET', `/api/memories/${created.body.id}`, { token: writer })).status).toBe(403);
    expect((await request('GET', `/api/memories/${created.body.id}`, { token: reader })).status).toBe(200);
    expect((await request('GET', '/api/memories?agentId=b', { token: reader })).status).toBe(404);
    expect((await request('GET', '/api/jobs/diagnostics', { token: reader })).status).toBe(403);
    expect((await request('GET', '/api/telemetry/recall', { token: reader })).status).toBe(403);
  });

  it('refuses missing, malformed, unknown, revoked and expired tokens with the same 401', async () => {
    const { request, engine, clock } = await startServer();
    const live = await engine.tokens.create({ agents: ['a'], permissions: ['read'] });
    const revoked = await engine.tokens.create({ agents: ['a'], permissions: ['read'] });
    const expiring = await engine.tokens.create({ agents: ['a'], permissions: ['read'], expiresAt: clock.now() + 500 });
    expect((await request('GET', '/api/memories', { token: live.token })).status).toBe(200);
    expect((await request('GET', '/api/memories', { token: revoked.token })).status).toBe(200);
    await engine.tokens.revoke({ id: revoked.id });
    clock.advance(500);
    const wrongSecret = `${live.token.slice(0, -4)}${live.token.endsWith('0000') ? '1111' : '0000'}`;
    const replies = [
      await request('GET', '/api/memories'),
      await request('GET', '/api/memories', { headers: { authorization: 'Basic abc' } }),
      await request('GET', '/api/memories', { token: 'mem_nope' }),
      await request('GET', '/api/memories', { token: wrongSecret }),
      await request('GET', '/api/memories', { token: revoked.token }),
      await request('GET', '/api/memories', { token: expiring.token }),
      await request('GET', '/api/memories', { token: 'x'.repeat(5000) }),
    ];
    for (const reply of replies) {
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe('Bearer realm="memory"');
      expect(reply.body).toEqual({
        error: { code: 'UNAUTHORIZED', message: 'a valid bearer token is required', details: {} },
      });
    }
    expect((await request('GET', '/api/memories', { token: live.token })).status).toBe(200);
  });

  it('unknown routes get the same 404 body; /openapi.json and /health need no token', async () => {
    const { request } = await startServer();
    expect(await request('GET', '/api/nothing-here')).toMatchObject({ status: 404, body: NOT_FOUND });
    expect((await request('GET', '/openapi.json')).status).toBe(200);
    expect(await request('GET', '/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
