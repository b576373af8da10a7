import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBin } from './build-bin.js';
import { runBin, tempDir, withEngine } from './helpers.js';

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');
let bin: string;
let removeBin: () => void;

const memory = (...args: string[]) => runBin(bin, ['--db', db, ...args]);

interface CreatedJson {
  id: string;
  token: string;
  agents: string[];
  permissions: string[];
}

async function createToken(...args: string[]): Promise<CreatedJson> {
  const r = await memory('--json', 'tokens', 'create', ...args);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as CreatedJson;
}

/** Starts `memory serve ...` and resolves to the URL it prints on stderr. */
async function serve(args: readonly string[]): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(process.execPath, [bin, '--db', db, 'serve', ...args], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'] },
  });
  child.stdin.end();
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /on (http:\/\/\S+)/.exec(stderr);
      if (match?.[1]) resolve(match[1]);
    });
    child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
  });
  return { child, url };
}

function exitOf(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', resolve));
}

beforeAll(async () => {
  ({ bin, remove: removeBin } = await buildBin());
  await withEngine(db, async (engine) => {
    await engine.remember({ agentId: 'alice', content: 'Alice waters the ferns on Sundays' });
    await engine.remember({ agentId: 'bob', content: 'Bob tunes the piano every spring' });
  });
}, 180_000);
afterAll(() => {
  removeBin?.();
  tmp.remove();
});

// Each case starts the bin several times (about 2 s each on a loaded machine).
const SLOW = { timeout: 180_000 };

describe('memory tokens', SLOW, () => {
  it('prints the secret alone on stdout, once, and the details on stderr', async () => {
    const r = await memory('tokens', 'create', '--agent', 'alice', '--name', 'editor', '--permissions', 'read');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mem_\S+\.[0-9a-f]{64}\n$/);
    expect(r.stderr).toContain('for alice (read)');
    expect(r.stderr).toContain('shown only this once');
    const secret = r.stdout.trim().split('.')[1] ?? 'missing';
    const list = await memory('tokens', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^id\s+name\s+agents\s+permissions\s+created\s+expires\s+state$/m);
    expect(list.stdout).toMatch(/editor\s+alice\s+read\s/);
    expect(list.stdout).not.toContain(secret);
  });

  it('gives --json the token with its secret on create, and without it on list', async () => {
    const created = await createToken('--agent', 'alice', '--agent', 'bob', '--permissions', 'read,write');
    expect(created).toMatchObject({ agents: ['alice', 'bob'], permissions: ['read', 'write'] });
    expect(created.token).toMatch(new RegExp(`^mem_${created.id}\\.[0-9a-f]{64}$`));
    const list = await memory('--json', 'tokens', 'list', '--agent', 'bob');
    const tokens = JSON.parse(list.stdout) as Array<Record<string, unknown>>;
    expect(tokens.map((t) => t['id'])).toContain(created.id);
    expect(tokens.every((t) => (t['agents'] as string[]).includes('bob'))).toBe(true);
    expect(list.stdout).not.toContain(created.token);
  });

  it('revokes (exit 0, again exit 0) and exits 3 for an unknown id', async () => {
    const { id } = await createToken('--agent', 'alice');
    expect(await memory('tokens', 'revoke', id)).toMatchObject({ code: 0, stdout: `revoked ${id}\n` });
    expect(await memory('tokens', 'revoke', id)).toMatchObject({ code: 0, stdout: `${id} was already revoked\n` });
    expect((await memory('tokens', 'list')).stdout).not.toContain(id);
    expect((await memory('tokens', 'list', '--all')).stdout).toMatch(new RegExp(`${id}.*revoked`));
    expect((await memory('tokens', 'revoke', 'no-such-token')).code).toBe(3);
  });

  it('exits 2 without an agent, with an unknown permission or an unreadable expiry', async () => {
    expect((await memory('tokens', 'create')).code).toBe(2);
    expect((await memory('tokens', 'create', '--agent', 'alice', '--permissions', 'root')).code).toBe(2);
    expect((await memory('tokens', 'create', '--agent', 'alice', '--expires', 'soon')).code).toBe(2);
  });
});

describe('memory serve --http', SLOW, () => {
  it('authenticates a CLI-made token, refuses it once revoked (401), and exits 0 on SIGTERM', async () => {
    const { id, token } = await createToken('--agent', 'alice', '--permissions', 'read');
    const { child, url } = await serve(['--http', '127.0.0.1:0']);
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const get = (bearer: string) => fetch(`${url}/api/memories`, { headers: { authorization: `Bearer ${bearer}` } });
      const ok = await get(token);
      expect(ok.status).toBe(200);
      const page = (await ok.json()) as { memories: Array<{ content: string }> };
      expect(page.memories.map((m) => m.content)).toEqual(['Alice waters the ferns on Sundays']);
      expect((await memory('tokens', 'revoke', id)).code).toBe(0);
      expect((await get(token)).status).toBe(401);
      const exited = exitOf(child);
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('refuses --http together with --mcp (exit 2)', async () => {
    const r = await memory('serve', '--http', '--mcp', '--agent', 'alice');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('one of --http and --mcp');
  });
});

describe('memory serve --mcp --listen --require-token', SLOW, () => {
  it("runs each token's calls in its agent, refuses a request without one, and exits 0 on SIGINT", async () => {
    const bob = await createToken('--agent', 'bob');
    const { child, url } = await serve(['--mcp', '--listen', '127.0.0.1:0', '--require-token']);
    try {
      const client = new Client({ name: 'cli-token-test', version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${bob.token}` } },
        }),
      );
      const result = (await client.callTool({ name: 'recall', arguments: { query: 'ferns piano' } })) as CallToolResult;
      const first = result.content[0];
      const recalled = first?.type === 'text' ? first.text : '';
      expect(recalled).toContain('Bob tunes the piano');
      expect(recalled).not.toContain('ferns');
      await client.close();
      const bare = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(bare.status).toBe(401);
      const exited = exitOf(child);
      child.kill('SIGINT');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
