import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const fixture = join(import.meta.dirname, 'fixtures', 'forgotten-engine.ts');

/**
 * Runs the fixture and reports how long the process lived after it finished writing: `exitedAfterMs`
 * is undefined when it was still alive `graceMs` after that (it is then killed).
 */
function runForgetful(
  mode: 'plain' | 'hold' | 'close',
  graceMs: number,
): Promise<{ exitedAfterMs?: number; code: number | null; stderr: string; stdout: string }> {
  const path = join(mkdtempSync(join(tmpdir(), 'memory-forgot-')), 'memory.db');
  const proc = spawn(
    process.execPath,
    ['--conditions=@memory/source', '--import', 'tsx', fixture, path, ...(mode === 'plain' ? [] : [mode])],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  let stdout = '';
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let writtenAt: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  proc.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (writtenAt === undefined && d.toString().includes('written')) {
      writtenAt = performance.now();
      timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    }
  });
  return new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      clearTimeout(timer);
      const alive = signal === 'SIGKILL' || writtenAt === undefined;
      resolve({ code, stderr, stdout, ...(alive ? {} : { exitedAfterMs: performance.now() - (writtenAt ?? 0) }) });
    });
  });
}

describe('a forgotten engine', () => {
  it('lets the host process exit without close() or start(), after file writes, worker embeddings and queued jobs', async () => {
    const run = await runForgetful('plain', 20_000);
    expect(run.stderr).toBe('');
    // 13 would be Node's "unsettled top-level await": a worker let go while a write awaited it.
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('document done');
    // Tear-down of the worker threads takes milliseconds; 20 s of grace absorbs a loaded machine
    // (the process that is kept alive, below, is never let go).
    expect(run.exitedAfterMs).toBeDefined();
  }, 180_000);

  it('lets a host whose last act is `await engine.close()` exit, with the database files already free', async () => {
    const run = await runForgetful('close', 20_000);
    expect(run.stderr).toBe('');
    // 13 would be an unsettled top-level await: close() waiting on a worker that let the process go.
    expect(run.code).toBe(0);
    // The directory was removed without retries right after close() resolved.
    expect(run.stdout).toContain('closed');
    expect(run.exitedAfterMs).toBeDefined();
  }, 180_000);

  it('is told apart from a process that something keeps alive (the check can fail)', async () => {
    const run = await runForgetful('hold', 1500);
    expect(run.exitedAfterMs).toBeUndefined();
  }, 180_000);
});
