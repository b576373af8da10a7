import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';
import { record, turnUntil, writeExport } from './import-fixtures.js';

const dir = () => mkdtempSync(join(tmpdir(), 'memory-import-checkpoint-'));

async function importEngine(limits: Record<string, number>) {
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: new Database(':memory:') },
    clock,
    scheduler,
    config: { imports: { maxRecordBytes: 1_000_000, maxMessages: 100, allowedDirectories: [tmpdir()], ...limits } },
  });
  return { engine, scheduler };
}

async function runToEnd(engine: MemoryEngine, scheduler: ReturnType<typeof createManualScheduler>, jobId: string) {
  // The import reads its file with real I/O: give the event loop turns, not just virtual time.
  const ended = await turnUntil(
    async () =>
      !['queued', 'running'].includes((await engine.imports.status({ agentId: 'target', jobId }))?.status ?? ''),
    { step: () => scheduler.advance(10) },
  );
  if (!ended) throw new Error('the import did not finish');
}

describe('import checkpoints', () => {
  it('a pause before the inventory has read the whole file resumes from the saved byte offset: every line counted once', async () => {
    const LINES = 300;
    const { engine, scheduler } = await importEngine({ inventoryBatchLines: 3, batchRecords: 2 });
    const file = join(dir(), 'export.jsonl');
    writeExport(
      file,
      Array.from({ length: LINES }, (_, n) => JSON.stringify(record(n))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.start();
    await scheduler.runDue();
    // Wait (in event-loop turns, bounded) until the inventory has committed a batch, then pause it
    // before it reaches the end of the file: the first pass over the file is interrupted.
    await turnUntil(async () => ((await engine.imports.status({ agentId: 'target', jobId }))?.counters.total ?? 0) > 0);
    const paused = await engine.imports.pause({ agentId: 'target', jobId });
    expect(paused.inventoried).toBe(false);
    expect(paused.counters.total).toBeGreaterThan(0);
    expect(paused.counters.total).toBeLessThan(LINES);
    await settle(20);

    await engine.imports.resume({ agentId: 'target', jobId });
    await runToEnd(engine, scheduler, jobId);
    const status = await engine.imports.status({ agentId: 'target', jobId });
    expect(status).toMatchObject({ status: 'completed', inventoried: true });
    expect(status?.counters).toEqual({ total: LINES, imported: LINES, duplicate: 0, rejected: 0, pending: 0 });
    const records = await engine.imports.records({ agentId: 'target', jobId, limit: 1000 });
    expect(records.map((r) => r.line)).toEqual(Array.from({ length: LINES }, (_, i) => i));
    expect(records.map((r) => r.recordId)).toEqual(Array.from({ length: LINES }, (_, i) => `rec-${i}`));
    // Each line located at its own byte range, in file order.
    for (let i = 1; i < records.length; i++)
      expect(records[i]?.byteOffset).toBeGreaterThan(records[i - 1]?.byteOffset ?? Infinity);
    await engine.close();
  });

  it.each([
    [0, 'completed'],
    [1, 'completed_with_rejections'],
    [2, 'completed_with_rejections'],
  ] as const)('an import with %i rejected line(s) ends %s', async (rejected, expected) => {
    const { engine } = await importEngine({ inventoryBatchLines: 2, batchRecords: 2 });
    const file = join(dir(), 'export.jsonl');
    const lines = [JSON.stringify(record(1)), JSON.stringify(record(2)), JSON.stringify(record(3))];
    for (let i = 0; i < rejected; i++) lines.splice(1 + i, 0, `{"id": "broken-${i}", `);
    writeExport(file, lines);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    const status = await engine.imports.status({ agentId: 'target', jobId });
    expect(status?.status).toBe(expected);
    expect(status?.counters).toEqual({ total: 3 + rejected, imported: 3, duplicate: 0, rejected, pending: 0 });
    expect(
      (await engine.imports.records({ agentId: 'target', jobId, outcome: 'rejected' })).map((r) => r.reason),
    ).toEqual(Array.from({ length: rejected }, () => 'malformed_json'));
    await engine.close();
  });
});
