import { mkdtempSync, readFileSync, realpathSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { createQueue } from '@memory/queue';
import { settle } from '@memory/queue/testing';
import { openStore } from '@memory/store';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { record, writeExport } from './import-fixtures.js';

// What each transaction of an import commits (`src/imports/inventory.ts`, `process-records.ts`),
// seen through a pause that lands at a known read: a pause lands at a batch boundary, so what the
// import holds afterwards is whole batches, sized by `inventoryBatchLines`, `batchRecords` and
// `batchBytes`. Found unchecked by mutation testing. Reads of the import file are given a hook.
const hooks = vi.hoisted(() => ({
  /** Called before every read of the import file at `position` for `length` bytes. */
  onRead: undefined as ((position: number, length: number) => Promise<void> | void) | undefined,
  file: '',
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      if (String(args[0]) !== hooks.file) return handle;
      const read = handle.read.bind(handle) as (...a: unknown[]) => Promise<unknown>;
      Object.assign(handle, {
        read: async (...a: unknown[]) => {
          await hooks.onRead?.(Number(a[3]), Number(a[2]));
          return read(...a);
        },
      });
      return handle;
    },
  };
});

const ref = (jobId: string) => ({ agentId: 'target', jobId });

async function importEngine(limits: Record<string, number> = {}) {
  hooks.onRead = undefined;
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const warnings: Array<[string, unknown]> = [];
  const logger = {
    debug: () => undefined,
    info: () => undefined,
    warn: (message: string, fields?: unknown) => warnings.push([message, fields]),
    error: () => undefined,
  };
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    logger,
    config: { imports: { allowedDirectories: [tmpdir()], ...limits } },
  });
  return { engine, db, clock, scheduler, warnings };
}

/**
 * Records 10..(10+n-1), all of one project: each line of the same byte length. Returns the file's real path (what the
 * import records) and that length.
 */
function exportFile(n: number): { file: string; lineBytes: number } {
  const file = join(realpathSync(mkdtempSync(join(tmpdir(), 'memory-import-batches-'))), 'export.jsonl');
  const lines = Array.from({ length: n }, (_, i) => JSON.stringify(record(10 + i, { project: 'alpha' })));
  expect(new Set(lines.map((l) => Buffer.byteLength(l))).size).toBe(1);
  writeExport(file, lines);
  hooks.file = file;
  return { file, lineBytes: Buffer.byteLength(lines[0] ?? '') };
}

/** Pauses the import just before the `n`th read of a record's bytes (the byte-order-mark check is not one). */
function pauseAtRecordRead(engine: Awaited<ReturnType<typeof importEngine>>['engine'], jobId: string, n: number) {
  let reads = 0;
  hooks.onRead = async (_position, length) => {
    if (length <= 3 || ++reads !== n) return;
    await engine.imports.pause(ref(jobId));
  };
}

async function countersAfterPause(engine: Awaited<ReturnType<typeof importEngine>>['engine'], jobId: string) {
  await engine.runDue();
  await settle();
  const status = await engine.imports.status(ref(jobId));
  expect(status?.status).toBe('paused');
  return status?.counters;
}

describe('settling commits whole batches', () => {
  it('of batchRecords records: a pause while the second batch is read leaves exactly the first', async () => {
    const { engine } = await importEngine({ batchRecords: 2 });
    exportFile(6);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    pauseAtRecordRead(engine, jobId, 3);
    expect(await countersAfterPause(engine, jobId)).toEqual({
      total: 6,
      imported: 2,
      duplicate: 0,
      rejected: 0,
      pending: 4,
    });
  });

  it.each([
    // Records fill a batch up to exactly batchBytes together: two per batch.
    ['exactly two records', 2, 0, 2],
    ['exactly two records', 3, 2, 2],
    // One byte short of two: one per batch.
    ['one byte less than two records', 2, 1, 2],
    // A record larger than the whole budget still forms a batch of its own.
    ['less than one record', 3, 2, 0],
  ] as const)(
    'of at most batchBytes (%s): a pause before record read %i leaves %i imported',
    async (_case, pauseAt, imported, records) => {
      const lineBytes = Buffer.byteLength(JSON.stringify(record(10, { project: 'alpha' })));
      const budget = records === 0 ? 10 : records * lineBytes - (imported === 1 ? 1 : 0);
      const sized = await importEngine({ batchRecords: 10, batchBytes: budget });
      exportFile(6);
      const { jobId } = await sized.engine.imports.start({ agentId: 'target', file: hooks.file });
      pauseAtRecordRead(sized.engine, jobId, pauseAt);
      expect((await countersAfterPause(sized.engine, jobId))?.imported).toBe(imported);
      // Resumed, the import settles the rest: every line once.
      await sized.engine.imports.resume(ref(jobId));
      hooks.onRead = undefined;
      await sized.engine.runDue();
      expect(await sized.engine.imports.status(ref(jobId))).toMatchObject({
        status: 'completed',
        counters: { total: 6, imported: 6, pending: 0 },
      });
    },
  );
});

describe('the inventory commits whole batches', () => {
  it('a pause before its first batch commits writes nothing; resumed, every line is located once', async () => {
    const { engine, db } = await importEngine({ inventoryBatchLines: 3 });
    exportFile(7);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    // The inventory's first read of the file is its byte-order-mark check.
    let paused = false;
    hooks.onRead = async (position, length) => {
      if (paused || position !== 0 || length !== 3) return;
      paused = true;
      await engine.imports.pause(ref(jobId));
    };
    expect(await countersAfterPause(engine, jobId)).toMatchObject({ total: 0, imported: 0 });
    expect((await engine.imports.status(ref(jobId)))?.inventoried).toBe(false);
    // The run says it stopped (it did not finish the import).
    expect(
      db
        .prepare("SELECT result FROM memory_jobs WHERE job_type = 'transcript_import'")
        .all()
        .map((r) => JSON.parse((r as { result: string }).result)),
    ).toEqual([{ stopped: true }]);
    hooks.onRead = undefined;
    await engine.imports.resume(ref(jobId));
    await engine.runDue();
    expect(await engine.imports.status(ref(jobId))).toMatchObject({
      status: 'completed',
      inventoried: true,
      counters: { total: 7, imported: 7, pending: 0 },
    });
    expect((await engine.imports.records(ref(jobId))).map((r) => r.line)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('a record’s bytes', () => {
  it('read short (the file cut while the run reads it) fail the import at that line, with or without a recorded hash', async () => {
    for (const hashed of [true, false]) {
      const { engine, db } = await importEngine({ batchRecords: 2 });
      const { lineBytes } = exportFile(4);
      const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
      // First run: inventory, then a pause before anything settles.
      pauseAtRecordRead(engine, jobId, 1);
      expect(await countersAfterPause(engine, jobId)).toMatchObject({ total: 4, pending: 4 });
      // Records inventoried without a hash are read by length alone.
      if (!hashed) db.prepare('UPDATE import_records SET raw_hash = NULL').run();
      let reads = 0;
      hooks.onRead = (_position, length) => {
        // Once the first batch is read, the file loses the last half of its last line.
        if (length > 3 && ++reads === 3) truncateSync(hooks.file, 4 * (lineBytes + 1) - Math.floor(lineBytes / 2));
      };
      await engine.imports.resume(ref(jobId));
      await engine.runDue();
      await settle();
      expect(await engine.imports.status(ref(jobId)), `hashed: ${hashed}`).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^line 3 of import file .* changed since the import started/),
        counters: { total: 4, imported: 3, rejected: 0, pending: 1 },
      });
      await engine.close();
    }
  });

  it('changed in place as the first line of a batch fail the import at that line (nothing of the batch is settled)', async () => {
    const { engine } = await importEngine({ batchRecords: 2 });
    exportFile(4);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    pauseAtRecordRead(engine, jobId, 1);
    expect(await countersAfterPause(engine, jobId)).toMatchObject({ total: 4, pending: 4 });
    // The first line rewritten in place: same length, other bytes.
    const text = readFileSync(hooks.file, 'utf8');
    writeFileSync(hooks.file, text.replace('Question 10:', 'Question 01:'));
    hooks.onRead = undefined;
    await engine.imports.resume(ref(jobId));
    await engine.runDue();
    expect(await engine.imports.status(ref(jobId))).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^line 0 of import file .* changed since the import started/),
      counters: { total: 4, imported: 0, pending: 4 },
    });
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
  });

  it('without a recorded hash, whole and unchanged, import as usual', async () => {
    const { engine, db } = await importEngine({ batchRecords: 2 });
    exportFile(4);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    pauseAtRecordRead(engine, jobId, 1);
    await countersAfterPause(engine, jobId);
    db.prepare('UPDATE import_records SET raw_hash = NULL').run();
    hooks.onRead = undefined;
    await engine.imports.resume(ref(jobId));
    await engine.runDue();
    expect(await engine.imports.status(ref(jobId))).toMatchObject({
      status: 'completed',
      counters: { total: 4, imported: 4, pending: 0 },
    });
  });
});

describe('an import run interrupted again and again', () => {
  it('is never dead-lettered for it: after more interruptions than attempts, the import still completes', async () => {
    const { engine, db, clock } = await importEngine({ batchRecords: 2 });
    exportFile(4);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    // The queue as another process on the same database sees it: each time, the run's process died
    // holding the lease, and the lease expired.
    const queue = createQueue({ store: await openStore({ database: db, clock }) });
    for (let i = 0; i < 5; i++) {
      db.prepare(
        `UPDATE memory_jobs SET status = 'leased', attempts = attempts + 1, lease_token = 'died-${i}',
           leased_at = ?, lease_expires_at = ? WHERE job_type = 'transcript_import'`,
      ).run(clock.now(), clock.now() + 1);
      clock.advance(2);
      expect(queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
    }
    await engine.runDue();
    expect(await engine.imports.status(ref(jobId))).toMatchObject({
      status: 'completed',
      counters: { total: 4, imported: 4 },
    });
  });
});

describe('a write the database refuses', () => {
  it('for something in the record rejects that record alone, logged with the import, the record and the SQLite code', async () => {
    const { engine, db, warnings } = await importEngine({ batchRecords: 10 });
    db.exec(`CREATE TRIGGER refuse_memory BEFORE INSERT ON memories WHEN NEW.id = 'm-refused'
             BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    db.exec(`CREATE TRIGGER refuse_session BEFORE INSERT ON session_transcripts WHEN NEW.session_key = 'session-11'
             BEGIN SELECT RAISE(ABORT, 'refused'); END`);
    exportFile(3);
    const memory = (id: string) =>
      JSON.stringify({
        kind: 'memory',
        id,
        content: `memory ${id}`,
        type: 'fact',
        history: [],
        mentions: [],
        created_at: 1,
        updated_at: 1,
      });
    writeExport(hooks.file, [
      JSON.stringify(record(10)),
      JSON.stringify(record(11)),
      memory('m-refused'),
      memory('m-kept'),
    ]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
    await engine.runDue();
    expect((await engine.imports.records(ref(jobId))).map((r) => [r.outcome, r.reason, r.recordId])).toEqual([
      ['imported', null, 'rec-10'],
      ['rejected', 'write_failed', 'rec-11'],
      ['rejected', 'write_failed', 'm-refused'],
      ['imported', null, 'm-kept'],
    ]);
    expect(await engine.imports.status(ref(jobId))).toMatchObject({ status: 'completed_with_rejections' });
    expect(warnings).toContainEqual([
      'import record refused by the database; rejected',
      { importId: jobId, recordId: 'rec-11', sqliteCode: 'SQLITE_CONSTRAINT_TRIGGER' },
    ]);
  });

  it.each([
    ['signet records', 'signet'],
    ['engine.export records', 'export'],
  ] as const)(
    'for lack of space (%s) fails the batch and rejects nothing; with space again, the import completes',
    async (_case, first) => {
      const { engine, db, clock } = await importEngine({ batchRecords: 10 });
      exportFile(4);
      // Records big enough that storing one needs new pages.
      const big = (n: number) =>
        JSON.stringify(
          record(n, { messages: [{ role: 'user', content: `${n} ${'many words '.repeat(4000)}` }], message_count: 1 }),
        );
      const bigMemory = (id: string) =>
        JSON.stringify({
          kind: 'memory',
          id,
          content: `${id} ${'other words '.repeat(4000)}`,
          type: 'fact',
          history: [],
          mentions: [],
          created_at: 1,
          updated_at: 1,
        });
      // (A refused write of one format then one of the other would fail the batch through the second.)
      writeExport(
        hooks.file,
        first === 'signet' ? [big(10), big(11), big(12), big(13)] : ['m-1', 'm-2', 'm-3', 'm-4'].map(bigMemory),
      );
      const { jobId } = await engine.imports.start({ agentId: 'target', file: hooks.file });
      pauseAtRecordRead(engine, jobId, 1);
      await countersAfterPause(engine, jobId);
      hooks.onRead = undefined;
      await engine.imports.resume(ref(jobId));
      // The database may not grow: writing the first record fails with SQLITE_FULL.
      const pages = db.pragma('page_count', { simple: true }) as number;
      db.pragma(`max_page_count = ${pages}`);
      await engine.runDue();
      expect((await engine.imports.status(ref(jobId)))?.counters).toMatchObject({
        imported: 0,
        rejected: 0,
        pending: 4,
      });
      db.pragma('max_page_count = 1073741823');
      for (let i = 0; i < 10 && (await engine.imports.status(ref(jobId)))?.status !== 'completed'; i++) {
        clock.advance(60_000);
        await engine.runDue();
      }
      expect(await engine.imports.status(ref(jobId))).toMatchObject({
        status: 'completed',
        counters: { total: 4, imported: 4, rejected: 0, pending: 0 },
      });
    },
  );
});
