import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConnectorCrashTrial } from './fixtures/connector-crash.js';

const FILES = 60;
const KILLS = 5;

describe('connector crash recovery', () => {
  it('a folder sync killed with SIGKILL 5 times at random ends as an uninterrupted sync would, without duplicates', async () => {
    const work = mkdtempSync(join(tmpdir(), 'memory-connector-crash-'));
    const seed = Date.now() % 1_000_000;
    try {
      const trial = await runConnectorCrashTrial({ work, files: FILES, kills: KILLS, seed });
      const context = `seed ${seed}, killed at ${trial.killedAt.join(', ')}`;
      expect(trial.kills, context).toBe(KILLS);
      expect(trial.interrupted, context).toBeGreaterThanOrEqual(1);
      expect(trial.deadJobs, context).toBe(0);
      // Counted once per file across every process (counters commit with the rows they count).
      expect(trial.finished, context).toMatchObject({ added: FILES, updated: 0, deleted: 0, renamed: 0 });
      expect(trial.crashed.dupes, context).toBe(0);
      expect(trial.crashed.documents, context).toBe(FILES);
      expect(trial.crashed.liveChunks, context).toBe(trial.reference.liveChunks);
      expect(trial.crashed.digest, context).toBe(trial.reference.digest);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 240_000);
});
