import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runImportCrashTrial } from './fixtures/import-crash.js';

// The bench runs the same trial on 100,000 lines: `npm run bench:import-crash`.
const LINES = 1200;
const KILLS = 10;

describe('import crash recovery', () => {
  it('an import killed with SIGKILL 10 times at random finishes with exact counters and the evidence of an uninterrupted run', async () => {
    const work = mkdtempSync(join(tmpdir(), 'memory-import-crash-'));
    const seed = Date.now() % 1_000_000;
    const trial = await runImportCrashTrial({ work, lines: LINES, kills: KILLS, seed });
    const context = `seed ${seed}, killed at ${trial.killedAt.join(', ')}`;
    expect(trial.kills, context).toBe(KILLS);
    // Every kill interrupted the import (an expired lease the queue counted), and none used an attempt;
    // a kill that landed after its process had finished the import had nothing to interrupt.
    expect(trial.late, context).toBeLessThanOrEqual(1);
    expect(trial.interrupted, context).toBe(KILLS - trial.late);
    expect(trial.jobs, context).toEqual([{ status: 'completed', attempts: 1, interruptions: KILLS - trial.late }]);
    expect(trial.finished, context).toEqual({ status: 'completed_with_rejections', counters: trial.expected });
    expect(trial.expected).toMatchObject({ total: LINES, pending: 0 });
    expect(trial.evidenceMatches, context).toBe(true);
  }, 180_000);
});
