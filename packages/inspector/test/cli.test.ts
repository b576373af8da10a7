import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEngine } from '@memory/engine';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'src', 'cli.ts');

function run(args: string[]) {
  return spawn(process.execPath, ['--conditions=@memory/source', '--import', 'tsx', CLI, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('memory-inspector (the command)', () => {
  it('serves a database file read-only until stopped, and explains its usage', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'inspector-cli-')), 'memory.db');
    const engine = await createMemoryEngine({ database: { path: file } });
    await engine.remember({ agentId: 'bot', content: 'Northwind renews every March.' });
    await engine.close();

    const child = run(['--db', file, '--agent', 'bot', '--port', '0', '--embedder', 'none']);
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
        if (found?.[1]) resolve(found[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)));
    });
    const page = await (await fetch(`${url}/?q=Northwind`)).text();
    expect(page).toContain('Northwind renews every March.');
    expect(page).toContain('read-only');
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);

    const usage = run(['--db', file]);
    let err = '';
    usage.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    expect(await new Promise((resolve) => usage.once('exit', resolve))).toBe(2);
    expect(err).toContain('usage: memory-inspector');
  }, 180_000);
});
