import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createMemoryEngine, type MemoryEngine } from '@memory/engine';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type McpHttpServer, startMcpHttpServer } from '../src/index.js';
import { call, NODE_ARGS, newClient, REPO_ROOT, tempDir, text } from './helpers.js';

async function connect(url: string) {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

describe('memory-mcp over Streamable HTTP on 127.0.0.1', () => {
  let engine: MemoryEngine;
  let alice: McpHttpServer;
  let bob: McpHttpServer;
  beforeAll(async () => {
    engine = await createMemoryEngine({ database: { path: ':memory:' } });
    alice = await startMcpHttpServer({ engine, agentId: 'alice', port: 0 });
    bob = await startMcpHttpServer({ engine, agentId: 'bob', port: 0 });
  });
  afterAll(async () => {
    await alice.close();
    await bob.close();
    await engine.close();
  });

  it('serves the tools on /mcp of a loopback address', async () => {
    expect(alice.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const client = await connect(alice.url);
    const remembered = await call(client, 'remember', { content: 'The deploy freeze starts on Thursday' });
    const { id } = remembered.structuredContent as { id: string };
    expect((await engine.getMemory({ agentId: 'alice', id }))?.content).toBe('The deploy freeze starts on Thursday');
    const recalled = await call(client, 'recall', { query: 'when does the deploy freeze start', budgetTokens: 60 });
    expect(text(recalled)).toContain(`[id: ${id}]`);
    await client.close();
  });

  it("keeps two servers on one engine in their own scopes: bob's calls cannot reach alice's memory", async () => {
    const a = await connect(alice.url);
    const b = await connect(bob.url);
    const { id } = (await call(a, 'remember', { content: 'Alice banks with Northwind Credit Union' }))
      .structuredContent as { id: string };
    expect(text(await call(b, 'recall', { query: 'Northwind Credit Union bank', agentId: 'alice' }))).toBe(
      'NO RELEVANT MEMORIES',
    );
    const forget = await call(b, 'forget', { id, reason: 'x', agentId: 'alice' });
    expect(forget.isError).toBe(true);
    expect(text(forget)).toMatch(/^NOT_FOUND: /);
    // Still there for alice, untouched.
    expect((await engine.getMemory({ agentId: 'alice', id }))?.deleted).toBe(false);
    const missing = await call(b, 'forget', { id: 'never-existed', reason: 'x' });
    expect(text(missing).replace('never-existed', id)).toBe(text(forget));
    await a.close();
    await b.close();
  });

  it('refuses a foreign Host header (DNS rebinding) and unknown paths', async () => {
    const port = new URL(alice.url).port;
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const { request } = await import('node:http');
    const status = (path: string, host: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers: { ...headers, host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(body);
      });
    expect(await status('/mcp', 'evil.example')).toBe(403);
    expect(await status('/other', `127.0.0.1:${port}`)).toBe(404);
  });

  it('listens on loopback only without tokens', async () => {
    await expect(
      startMcpHttpServer({ engine, agentId: 'alice', host: '0.0.0.0', port: 0, requireToken: false }),
    ).rejects.toMatchObject({
      code: 'INVALID_CONFIG',
    });
  });
});

describe('the memory-mcp bin with --http', () => {
  it('serves on the port it prints and exits 0 on SIGTERM', async () => {
    const tmp = tempDir();
    const child = spawn(
      process.execPath,
      [...NODE_ARGS, '--db', join(tmp.dir, 'm.db'), '--agent', 'carol', '--http', '127.0.0.1:0'],
      { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /over (http:\/\/\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
      const client = await connect(url);
      const result = await call(client, 'remember', { content: 'Carol reviews pull requests in the morning' });
      expect(result.isError).toBeFalsy();
      await client.close();
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
      tmp.remove();
    }
  });

  it('exits 2 with the usage when --agent is missing', async () => {
    const child = spawn(process.execPath, [...NODE_ARGS, '--db', ':memory:'], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(stderr).toContain('--agent');
    expect(stderr).toContain('Usage: memory-mcp');
  });
});
