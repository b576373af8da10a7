import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { record, writeExport } from './import-fixtures.js';

// The import's status transitions as a host sees them: which moves are allowed from which status,
// what a refused move or a missing import reports, that cancelling stops the queued run, and that a
// file gone before the run fails the import (found by mutation testing of src/imports/set-status.ts
// and run-import.ts).

async function queuedImport() {
  const clock = createManualClock(T0);
  const { engine } = await createTestEngine({
    database: { database: new Database(':memory:') },
    clock,
    scheduler: createManualScheduler(clock),
    config: { imports: { allowedDirectories: [tmpdir()] } },
  });
  const file = join(mkdtempSync(join(tmpdir(), 'memory-import-status-')), 'export.jsonl');
  writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
  const { jobId } = await engine.imports.start({ agentId: 'target', file });
  return { engine, jobId, file };
}

describe('import status transitions', () => {
  it('pause from queued, resume to queued with a new run, cancel from paused cancels the queued run', async () => {
    const { engine, jobId } = await queuedImport();
    const firstRun = (await engine.imports.status({ agentId: 'target', jobId }))?.status;
    expect(firstRun).toBe('queued');
    expect((await engine.imports.pause({ agentId: 'target', jobId })).status).toBe('paused');
    expect((await engine.imports.resume({ agentId: 'target', jobId })).status).toBe('queued');
    expect((await engine.imports.pause({ agentId: 'target', jobId })).status).toBe('paused');
    expect((await engine.imports.cancel({ agentId: 'target', jobId })).status).toBe('cancelled');
    // The first run's job is still queued: it runs, finds the import no longer its own, and stops.
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'cancelled',
      counters: { total: 0, imported: 0 },
    });
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
  });

  it('a refused move says what the import is and what the move needs; a missing import is NOT_FOUND', async () => {
    const { engine, jobId } = await queuedImport();
    await engine.runDue();
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.status).toBe('completed');
    for (const [move, needs] of [
      ['pause', 'queued or running'],
      ['resume', 'paused'], // (or failed: a failed import resumes too)
      ['cancel', 'queued or running or paused'],
    ] as const) {
      await expect(engine.imports[move]({ agentId: 'target', jobId })).rejects.toMatchObject({
        code: 'CONFLICT',
        message: expect.stringContaining(`import ${jobId} is completed; imports.${move} needs ${needs}`),
        details: { jobId, status: 'completed' },
      });
    }
    await expect(engine.imports.pause({ agentId: 'target', jobId: 'no-such-import' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringContaining('no-such-import'),
      details: { jobId: 'no-such-import' },
    });
    await expect(engine.imports.cancel({ agentId: 'someone-else', jobId })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('fails the import for good when its file is gone before the run', async () => {
    const { engine, jobId, file } = await queuedImport();
    rmSync(file);
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'failed',
      error: `import file ${file} is gone`,
      counters: { total: 0 },
    });
  });
});
