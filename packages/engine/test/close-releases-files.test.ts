import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

/**
 * The files under `dir` this process holds open, one entry per descriptor (Linux: /proc/self/fd).
 * After the engine's own connection closed, any left is the checkpoint worker's connection.
 */
function openFilesUnder(dir: string): string[] {
  const held: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${dir}/`)) held.push(target.slice(dir.length + 1));
    } catch {
      // The descriptor readdirSync itself used is gone by now.
    }
  }
  return held.sort();
}

/** Threads of this process (Linux: /proc/self/status); a worker thread counts until it has exited. */
function threads(): number {
  return Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
}

describe('await engine.close()', () => {
  it.skipIf(process.platform !== 'linux')(
    'leaves no thread holding the database files, so the directory can be removed at once (20 opens)',
    async () => {
      const warnings: string[] = [];
      const none = () => undefined;
      const logger = { debug: none, info: none, error: none, warn: (message: string) => warnings.push(message) };
      for (let round = 0; round < 20; round++) {
        const dir = mkdtempSync(join(tmpdir(), 'memory-close-'));
        const threadsBefore = threads();
        const { engine } = await createTestEngine({ database: { path: join(dir, 'memory.db') }, logger });
        // More commits than the first checkpoint cadence (4): the worker is asked to checkpoint.
        for (let i = 0; i < 8; i++) {
          await engine.remember({ agentId: 'a', content: `round ${round} note ${i}: ${'detail '.repeat(200)}` });
        }
        await engine.rememberMany({
          agentId: 'scratch',
          memories: Array.from({ length: 40 }, (_, i) => ({ content: `batch ${round} item ${i} about tea` })),
        });
        // Erasing a scope waits for a TRUNCATE checkpoint on the worker: it is running, and has
        // checkpointed. Then two connections hold the file: the engine's and the worker's.
        await engine.erase({ agentId: 'scratch' });
        await engine.remember({ agentId: 'a', content: `round ${round}: written after the checkpoint` });
        expect(openFilesUnder(dir).filter((f) => f === 'memory.db').length).toBe(2);
        expect(threads()).toBeGreaterThan(threadsBefore);
        await engine.close();
        expect(openFilesUnder(dir)).toEqual([]);
        // The checkpoint worker's thread is gone (from the second round on: the first starts the
        // thread pools that stay).
        if (round > 0) expect(threads()).toBe(threadsBefore);
        // No retries: nothing may create or delete a file in it any more.
        rmSync(dir, { recursive: true });
      }
      // The worker exited on its own every time: it was never terminated at the deadline.
      expect(warnings).toEqual([]);
    },
    120_000,
  );
});
