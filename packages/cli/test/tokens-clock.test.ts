import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/index.js';
import type { CliRuntime } from '../src/runtime.js';
import { tempDir } from './helpers.js';

const tmp = tempDir();
const db = join(tmp.dir, 'memory.db');
afterAll(() => tmp.remove());

const DAY = 86_400_000;
const START = Date.UTC(2031, 0, 1);

/** Runs the CLI in this process with the clock at `at`; resolves to its exit code and stdout. */
async function memoryAt(at: number, ...args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const runtime: CliRuntime = {
    stdout: {
      write: (chunk: string) => {
        stdout += chunk;
        return true;
      },
    } as CliRuntime['stdout'],
    stderr: { write: () => true } as unknown as CliRuntime['stderr'],
    env: {},
    now: () => at,
    exitCode: 0,
  };
  const code = await runCli(['--db', db, ...args], runtime);
  return { code, stdout };
}

describe('memory tokens with an injected clock', () => {
  it('dates --expires 30d from the runtime clock, and lists the token expired once that clock passes it', async () => {
    const created = await memoryAt(START, '--json', 'tokens', 'create', '--agent', 'alice', '--expires', '30d');
    expect(created.code).toBe(0);
    const token = JSON.parse(created.stdout) as { id: string; expiresAt: number };
    expect(token.expiresAt).toBe(START + 30 * DAY);

    const before = await memoryAt(START + 29 * DAY, 'tokens', 'list');
    expect(before.stdout).toMatch(new RegExp(`${token.id}.*live`));
    const after = await memoryAt(START + 31 * DAY, 'tokens', 'list');
    expect(after.stdout).toMatch(new RegExp(`${token.id}.*expired`));
  });
});
