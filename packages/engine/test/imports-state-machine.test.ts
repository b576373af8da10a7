import { appendFileSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { MemoryEngine } from '../src/index.js';
import { createTestEngine, T0 } from './helpers.js';
import { record, turnUntil, writeExport } from './import-fixtures.js';

// The import state machine as a host sees it, one test per rule that mutation testing of
// src/imports/ (context, run-import, inventory, process-records, set-status) found unchecked:
// what a queued run does with a paused import, what resume does to a failed one, which queue job a
// cancel stops, where the size cap falls, what a rejected line records, and that a run lets go of
// the file.

const directory = () => mkdtempSync(join(tmpdir(), 'memory-import-states-'));

async function importEngine(limits: Record<string, number> = {}) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    config: { imports: { allowedDirectories: [tmpdir()], ...limits } },
  });
  return { engine, db, scheduler };
}

/** Runs the queue until the import leaves queued/running (real file I/O: event-loop turns, bounded). */
async function runToEnd(engine: MemoryEngine, jobId: string, agentId = 'target'): Promise<void> {
  const ended = await turnUntil(async () => {
    await engine.runDue();
    const status = (await engine.imports.status({ agentId, jobId }))?.status;
    return status !== 'queued' && status !== 'running';
  });
  if (!ended) throw new Error('the import did not finish');
}

/** The queue job an import names, as the queue sees it. */
const queueJob = (db: Database.Database, importId: string) =>
  db
    .prepare('SELECT j.id, j.status FROM import_jobs i JOIN memory_jobs j ON j.id = i.job_id WHERE i.id = ?')
    .get(importId) as { id: string; status: string } | undefined;

describe('import state machine', () => {
  it('a paused import is left alone by its queued run, and resume imports it', async () => {
    const { engine } = await importEngine();
    const file = join(directory(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.imports.pause({ agentId: 'target', jobId });
    // The run queued by start still names this import: it must see the pause and do nothing.
    await engine.runDue();
    await settle();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'paused',
      counters: { total: 0, imported: 0 },
    });
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
    await engine.imports.resume({ agentId: 'target', jobId });
    await runToEnd(engine, jobId);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 2, imported: 2, pending: 0 },
    });
  });

  it('resuming a failed import clears its error, and the new run continues it', async () => {
    const { engine } = await importEngine();
    const file = join(directory(), 'export.jsonl');
    const lines = [JSON.stringify(record(1)), JSON.stringify(record(2))];
    writeExport(file, lines);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    rmSync(file);
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'failed',
      error: `import file ${file} is gone`,
    });
    writeExport(file, lines);
    expect(await engine.imports.resume({ agentId: 'target', jobId })).toMatchObject({ status: 'queued', error: null });
    await runToEnd(engine, jobId);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      error: null,
      counters: { total: 2, imported: 2 },
    });
  });

  it('a file that changed size before the run fails the import, saying so', async () => {
    const { engine } = await importEngine();
    const file = join(directory(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    appendFileSync(file, `${JSON.stringify(record(2))}\n`);
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'failed',
      error: `import file ${file} changed since the import started`,
      counters: { total: 0 },
    });
  });

  it('cancel stops the queue job the import names, not only the import', async () => {
    const { engine, db } = await importEngine();
    const file = join(directory(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    expect(queueJob(db, jobId)?.status).toBe('pending');
    await engine.imports.cancel({ agentId: 'target', jobId });
    expect(queueJob(db, jobId)?.status).toBe('cancelled');
  });

  it('a run that committed batches and is cancelled writes nothing more', async () => {
    const { engine, scheduler } = await importEngine({ batchRecords: 2, inventoryBatchLines: 3 });
    const file = join(directory(), 'export.jsonl');
    writeExport(
      file,
      Array.from({ length: 30 }, (_, n) => JSON.stringify(record(n))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.start();
    await scheduler.runDue();
    let imported = 0;
    await turnUntil(async () => {
      imported = (await engine.imports.status({ agentId: 'target', jobId }))?.counters.imported ?? 0;
      return imported > 0;
    });
    expect(imported).toBeGreaterThan(0);
    expect((await engine.imports.cancel({ agentId: 'target', jobId })).status).toBe('cancelled');
    const atCancel = (await engine.imports.status({ agentId: 'target', jobId }))?.counters;
    for (let i = 0; i < 20; i++) {
      await scheduler.advance(1000);
      await settle();
    }
    const after = await engine.imports.status({ agentId: 'target', jobId });
    expect(after?.status).toBe('cancelled');
    expect(after?.counters).toEqual(atCancel);
    expect(after?.counters.pending).toBeGreaterThan(0);
    await engine.close();
  });

  it('a line of exactly maxRecordBytes is read; one byte more is rejected unread as oversized_record', async () => {
    const line = JSON.stringify(record(1));
    const bytes = Buffer.byteLength(line);
    for (const [maxRecordBytes, outcome, reason] of [
      [bytes, 'imported', null],
      [bytes - 1, 'rejected', 'oversized_record'],
    ] as const) {
      const { engine } = await importEngine({ maxRecordBytes });
      const file = join(directory(), 'export.jsonl');
      writeExport(file, [line]);
      const { jobId } = await engine.imports.start({ agentId: 'target', file });
      await runToEnd(engine, jobId);
      expect(await engine.imports.records({ agentId: 'target', jobId })).toMatchObject([{ line: 0, outcome, reason }]);
    }
  });

  it('a rejected line keeps the record id it had, and null when it had none', async () => {
    const { engine } = await importEngine();
    const file = join(directory(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1, { message_count: 9 })), '{"broken": ', JSON.stringify(record(2))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await runToEnd(engine, jobId);
    expect(await engine.imports.records({ agentId: 'target', jobId })).toMatchObject([
      { line: 0, outcome: 'rejected', reason: 'message_count_mismatch', recordId: 'rec-1' },
      { line: 1, outcome: 'rejected', reason: 'malformed_json', recordId: null },
      { line: 2, outcome: 'imported', reason: null, recordId: 'rec-2' },
    ]);
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.status).toBe('completed_with_rejections');
  });

  it.skipIf(process.platform !== 'linux')(
    'lets go of the file once the run is over (no descriptor left open on it)',
    async () => {
      const { engine } = await importEngine({ batchRecords: 2 });
      const file = join(directory(), 'export.jsonl');
      writeExport(
        file,
        Array.from({ length: 5 }, (_, n) => JSON.stringify(record(n))),
      );
      const { jobId } = await engine.imports.start({ agentId: 'target', file });
      await runToEnd(engine, jobId);
      expect((await engine.imports.status({ agentId: 'target', jobId }))?.status).toBe('completed');
      await settle();
      // Linux lists this process's open descriptors, each a link to what it is open on.
      const open = readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      });
      expect(open).toEqual([]);
    },
  );
});
