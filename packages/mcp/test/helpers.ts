import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../src/bin.ts', import.meta.url));
/** How the tests start the bin: from source, through tsx, as bench does. */
export const NODE_ARGS = ['--conditions=@memory/source', '--import', 'tsx', BIN];

export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'memory-mcp-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }) };
}

export function newClient(): Client {
  return new Client({ name: 'memory-mcp-test', version: '1.0.0' });
}

/** The text of a tool result (its first text block). */
export function text(result: unknown): string {
  const content = (result as CallToolResult).content;
  const first = content[0];
  return first?.type === 'text' ? first.text : '';
}

export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}
