import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEngine, type MemoryEngine, PermanentJobError } from '@memory/engine';

export interface RunResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the built bin in a child process, its stdout and stderr piped (not a terminal). */
export function runBin(bin: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env['PATH'], HOME: process.env['HOME'], ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function tempDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'memory-cli-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true, maxRetries: 5 }) };
}

/** Opens the test database in this process, runs `body`, closes it (the CLI then opens the file itself). */
export async function withEngine<T>(db: string, body: (engine: MemoryEngine) => Promise<T>): Promise<T> {
  const engine = await createMemoryEngine({ database: { path: db } });
  try {
    return await body(engine);
  } finally {
    await engine.close();
  }
}

/** A host job that fails permanently on its one attempt: the queue dead-letters it. */
export async function makeDeadJob(engine: MemoryEngine): Promise<string> {
  engine.jobs.registerHandler({
    jobTypes: ['test-always-fails'],
    handler: async () => {
      throw new PermanentJobError('this job always fails');
    },
  });
  const { id } = await engine.jobs.enqueue({ jobType: 'test-always-fails', maxAttempts: 1 });
  await engine.runDue();
  return id;
}

/** A signet-export v1 record with a user and an assistant turn. */
export function exportRecord(n: number): Record<string, unknown> {
  const messages = [
    { role: 'user', content: `Question ${n} about the garden` },
    { role: 'assistant', content: `Answer ${n}: water the roses in the evening` },
  ];
  return {
    id: `rec-${n}`,
    source: 'claude-code',
    harness: 'claude-code',
    agent_id: 'someone-else',
    session_key: `session-${n}`,
    timestamp: new Date(Date.UTC(2024, 0, 1 + (n % 28), 12)).toISOString(),
    message_count: messages.length,
    messages,
  };
}

/** Writes an export of `count` good records, plus `broken` malformed lines at the end. */
export function writeExport(file: string, count: number, broken = 0): void {
  const lines = Array.from({ length: count }, (_, i) => JSON.stringify(exportRecord(i + 1)));
  for (let i = 0; i < broken; i++) lines.push('{"id": "broken", ');
  writeFileSync(file, `${lines.join('\n')}\n`);
}

export const ANSI = /\u001b\[[0-9;]*m/;
