import { request } from 'node:http';
import { createMemoryEngine, type MemoryEngine } from '@memory/engine';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHttpServer, startMcpHttpServer } from '../src/index.js';
import { call, newClient, text } from './helpers.js';

async function connect(url: string, token: string): Promise<Client> {
  const client = newClient();
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
  );
  return client;
}

/** The status of a bare tools/list POST with this Authorization header (or none). */
function status(url: string, authorization?: string): Promise<number> {
  const { port, pathname } = new URL(url);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...(authorization === undefined ? {} : { authorization }),
  };
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: pathname, method: 'POST', headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }));
  });
}

const WRITE_TOOLS = [
  'remember',
  'forget',
  'modify',
  'transcript_append',
  'document_add',
  'note_create',
  'note_update',
  'note_resolve',
  'note_archive',
];

describe('MCP Streamable HTTP with bearer tokens on 127.0.0.1', () => {
  let engine: MemoryEngine;
  let server: McpHttpServer;
  let aliceToken: string;
  let bobToken: string;
  beforeAll(async () => {
    engine = await createMemoryEngine({ database: { path: ':memory:' } });
    // The configured agent is only the pick among a several-agent token's agents.
    server = await startMcpHttpServer({ engine, agentId: 'carol', requireToken: true, port: 0 });
    aliceToken = (await engine.tokens.create({ agents: ['alice'], permissions: ['read', 'write'] })).token;
    bobToken = (await engine.tokens.create({ agents: ['bob'], permissions: ['read', 'write'] })).token;
  });
  afterAll(async () => {
    await server.close();
    await engine.close();
  });

  it("runs each token's calls in its own agent: two tokens cannot see each other's memories", async () => {
    const a = await connect(server.url, aliceToken);
    const b = await connect(server.url, bobToken);
    const { id } = (await call(a, 'remember', { content: 'Alice keeps the spare key under the blue flowerpot' }))
      .structuredContent as { id: string };
    expect((await engine.getMemory({ agentId: 'alice', id }))?.content).toContain('blue flowerpot');
    expect(text(await call(a, 'recall', { query: 'where is the spare key' }))).toContain(`[id: ${id}]`);
    // Naming alice in the arguments changes nothing: the scope is the token's.
    expect(text(await call(b, 'recall', { query: 'where is the spare key', agentId: 'alice' }))).toBe(
      'NO RELEVANT MEMORIES',
    );
    const forget = await call(b, 'forget', { id, reason: 'x', agentId: 'alice' });
    expect(text(forget)).toMatch(/^NOT_FOUND: /);
    expect((await engine.getMemory({ agentId: 'alice', id }))?.deleted).toBe(false);
    // And nothing reached carol, the configured agent.
    expect((await engine.list({ agentId: 'carol' })).memories).toHaveLength(0);
    await a.close();
    await b.close();
  });

  it('offers a read-only token no writing tool, and its write calls change nothing', async () => {
    const { token } = await engine.tokens.create({ agents: ['alice'], permissions: ['read'] });
    const client = await connect(server.url, token);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['recall', 'history', 'note_search', 'note_list']));
    for (const tool of WRITE_TOOLS) expect(names).not.toContain(tool);
    const before = (await engine.list({ agentId: 'alice' })).memories.length;
    const refused = await client.callTool({ name: 'remember', arguments: { content: 'A read token wrote this' } }).then(
      (r) => (r.isError ? 'tool error' : 'accepted'),
      () => 'protocol error',
    );
    expect(refused).not.toBe('accepted');
    expect((await engine.list({ agentId: 'alice' })).memories).toHaveLength(before);
    await client.close();
  });

  it('refuses a missing, malformed, unknown or revoked token with 401', async () => {
    const { id, token } = await engine.tokens.create({ agents: ['alice'], permissions: ['read', 'write'] });
    expect(await status(server.url, `Bearer ${token}`)).toBe(200);
    // A live token with its secret's last hex digit changed (never to the digit it already has).
    expect(await status(server.url, `Bearer ${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}`)).toBe(401);
    await engine.tokens.revoke({ id });
    expect(await status(server.url, `Bearer ${token}`)).toBe(401);
    expect(await status(server.url)).toBe(401);
    expect(await status(server.url, 'Bearer nonsense')).toBe(401);
    await expect(connect(server.url, token)).rejects.toThrow();
  });

  it('answers a several-agent token for the configured agent only, else the 404 of an unknown path', async () => {
    const covering = await engine.tokens.create({ agents: ['alice', 'carol'], permissions: ['read', 'write'] });
    const client = await connect(server.url, covering.token);
    const { id } = (await call(client, 'remember', { content: 'Carol owns the release checklist' }))
      .structuredContent as { id: string };
    expect((await engine.getMemory({ agentId: 'carol', id }))?.content).toBe('Carol owns the release checklist');
    await client.close();
    const other = await engine.tokens.create({ agents: ['alice', 'bob'], permissions: ['read'] });
    expect(await status(server.url, `Bearer ${other.token}`)).toBe(404);
    const analytics = await engine.tokens.create({ agents: ['alice'], permissions: ['analytics'] });
    expect(await status(server.url, `Bearer ${analytics.token}`)).toBe(403);
  });

  it('requires tokens off loopback', async () => {
    const open = await startMcpHttpServer({ engine, host: '0.0.0.0', port: 0 });
    try {
      const url = open.url.replace('0.0.0.0', '127.0.0.1');
      expect(await status(url)).toBe(401);
      expect(await status(url, `Bearer ${aliceToken}`)).toBe(200);
    } finally {
      await open.close();
    }
  });
});
