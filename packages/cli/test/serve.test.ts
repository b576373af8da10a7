import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBin } from './build-bin.js';
import { runBin, tempDir, withEngine } from './helpers.js';

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');
let bin: string;
let removeBin: () => void;

beforeAll(async () => {
  ({ bin, remove: removeBin } = await buildBin());
  await withEngine(db, (engine) =>
    engine.remember({ agentId: 'alice', content: 'The office wifi password rotates monthly' }),
  );
}, 180_000);
afterAll(() => {
  removeBin?.();
  tmp.remove();
});

describe('memory serve --mcp', () => {
  it("serves the agent's memory to an MCP client over stdio", async () => {
    const client = new Client({ name: 'cli-serve-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [bin, '--db', db, 'serve', '--mcp', '--agent', 'alice'],
        stderr: 'pipe',
      }),
    );
    try {
      const result = (await client.callTool({
        name: 'recall',
        arguments: { query: 'wifi password' },
      })) as CallToolResult;
      const first = result.content[0];
      expect(first?.type === 'text' ? first.text : '').toContain('The office wifi password rotates monthly');
    } finally {
      await client.close();
    }
  });

  it('exits 2 when no surface is chosen', async () => {
    const r = await runBin(bin, ['--db', db, 'serve', '--agent', 'alice']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--mcp');
  });
});

describe('memory serve --mcp --listen', () => {
  it('serves Streamable HTTP on the loopback port it prints, and exits 0 on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [bin, '--db', db, 'serve', '--mcp', '--agent', 'alice', '--listen', '127.0.0.1:0'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let stderr = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          const match = /on (http:\/\/\S+)/.exec(stderr);
          if (match?.[1]) resolve(match[1]);
        });
        child.once('exit', () => reject(new Error(`exited early: ${stderr}`)));
      });
      const client = new Client({ name: 'cli-serve-http-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      const result = (await client.callTool({
        name: 'recall',
        arguments: { query: 'wifi password' },
      })) as CallToolResult;
      const first = result.content[0];
      expect(first?.type === 'text' ? first.text : '').toContain('wifi password rotates');
      await client.close();
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
