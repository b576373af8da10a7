import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openFilesUnder, processThreads, threadsSettledTo } from '../../store/test/support/wal-files.js';
import { createTestEngine } from './helpers.js';

describe('await engine.close()', () => {
  it.skipIf(process.platform !== 'linux')(
    'leaves no thread holding the database files, so the directory can be removed at once (20 opens)',
    async () => {
      const warnings: string[] = [];
      const none = () => undefined;
      const logger = { debug: none, info: none, error: none, warn: (message: string) => warnings.push(message) };
      for (let round = 0; round < 20; round++) {
        const dir = mkdtempSync(join(tmpdir(), 'memory-close-'));
        const threadsBefore = processThreads();
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
        expect(processThreads()).toBeGreaterThan(threadsBefore);
        await engine.close();
        expect(openFilesUnder(dir)).toEqual([]);
        // The checkpoint worker's thread is gone (from the second round on: the first starts the
        // thread pools that stay).
        if (round > 0) expect(await threadsSettledTo(threadsBefore)).toBe(threadsBefore);
        // No retries: nothing may create or delete a file in it any more.
        rmSync(dir, { recursive: true });
      }
      // The worker exited on its own every time: it was never terminated at the deadline.
      expect(warnings).toEqual([]);
    },
    120_000,
  );
});
