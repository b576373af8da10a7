import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { record, writeExport } from './import-fixtures.js';

// How one run of an import (`src/imports/run-import.ts`) begins, hands over and ends, as the
// database and the queue record it. Found unchecked by mutation testing: where a run's time slice
// ends, which runs may touch an import at all, and what a run whose lease is gone still writes.
// The file check (`stat`) and the opening of the file are given hooks, to land a clock move or a
// lost lease at a known point of the run.
const hooks = vi.hoisted(() => ({
  onStat: undefined as ((path: string) => Promise<void> | void) | undefined,
  onOpen: undefined as ((path: string) => Promise<void> | void) | undefined,
  /** Called where a run yields to the event loop: between its batches. */
  onYield: undefined as (() => Promise<void> | void) | undefined,
}));
vi.mock('@memory/core', async (importOriginal) => {
  const real = await importOriginal<typeof import('@memory/core')>();
  return {
    ...real,
    yieldToEventLoop: async () => {
      await hooks.onYield?.();
      return real.yieldToEventLoop();
    },
  };
});
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    stat: async (...args: Parameters<typeof real.stat>) => {
      await hooks.onStat?.(String(args[0]));
      return real.stat(...args);
    },
    open: async (...args: Parameters<typeof real.open>) => {
      await hooks.onOpen?.(String(args[0]));
      return real.open(...args);
    },
  };
});

const DEADLINE_MS = 10_000;

async function importEngine(limits: Record<string, number> = {}, queue: Record<string, number> = {}) {
  hooks.onStat = undefined;
  hooks.onOpen = undefined;
  hooks.onYield = undefined;
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    config: { imports: { allowedDirectories: [tmpdir()], ...limits }, queue: { jobDeadlineMs: DEADLINE_MS, ...queue } },
  });
  return { engine, db, clock, scheduler };
}

/** An export of `n` records in a fresh directory; its real path (what the import records). */
function exportFile(n: number): string {
  const file = join(realpathSync(mkdtempSync(join(tmpdir(), 'memory-import-runs-'))), 'export.jsonl');
  writeExport(
    file,
    Array.from({ length: n }, (_, i) => JSON.stringify(record(i))),
  );
  return file;
}

interface RunRow {
  id: string;
  status: string;
  attempts: number;
  error: string | null;
  result: string | null;
}

/** Every queue job that ran (or was to run) imports, oldest first. */
const runs = (db: Database.Database) =>
  db
    .prepare(
      "SELECT id, status, attempts, error, result FROM memory_jobs WHERE job_type = 'transcript_import' ORDER BY rowid",
    )
    .all() as RunRow[];

const importRow = (db: Database.Database, id: string) =>
  db.prepare('SELECT status, job_id, error, completed_at, updated_at FROM import_jobs WHERE id = ?').get(id) as {
    status: string;
    job_id: string;
    error: string | null;
    completed_at: number | null;
    updated_at: number;
  };

describe('a run’s time slice', () => {
  // A run hands over at the first batch boundary at or past 80% of its deadline; the next run
  // continues from the checkpoint. The clock is moved while the run checks its file, after the run
  // computed where its slice ends.
  it.each([
    ['inventory', { inventoryBatchLines: 3, batchRecords: 2 }, { total: 3, imported: 0, inventoried: false }],
    ['settling', { inventoryBatchLines: 100, batchRecords: 2 }, { total: 10, imported: 0, inventoried: true }],
  ] as const)(
    'during %s: the clock at exactly 80% of the deadline hands over at the next boundary; one ms before does not',
    async (_phase, limits, handedOver) => {
      for (const [moved, expectedRuns] of [
        [0.8 * DEADLINE_MS - 1, 1],
        [0.8 * DEADLINE_MS, 2],
      ] as const) {
        const { engine, db, clock } = await importEngine(limits);
        const file = exportFile(10);
        const { jobId } = await engine.imports.start({ agentId: 'target', file });
        const atStart: unknown[] = [];
        hooks.onStat = async (path) => {
          if (path !== file) return;
          const status = await engine.imports.status({ agentId: 'target', jobId });
          atStart.push({
            total: status?.counters.total,
            imported: status?.counters.imported,
            inventoried: status?.inventoried,
          });
          if (atStart.length === 1) clock.advance(moved);
        };
        for (let i = 0; i < 5 && runs(db).some((r) => r.status === 'pending'); i++) await engine.runDue();
        expect(await engine.imports.status({ agentId: 'target', jobId }), `moved ${moved}`).toMatchObject({
          status: 'completed',
          counters: { total: 10, imported: 10, pending: 0 },
        });
        // Each run completed its one attempt (none ran into its deadline); one that handed over says so.
        expect(
          runs(db).map((r) => [r.status, r.attempts, r.error]),
          `moved ${moved}`,
        ).toEqual(Array.from({ length: expectedRuns }, () => ['completed', 1, null]));
        expect(
          runs(db).map((r) => JSON.parse(r.result ?? 'null')),
          `moved ${moved}`,
        ).toEqual([
          ...(expectedRuns === 2 ? [{ continued: true }] : []),
          expect.objectContaining({ imported: 10, pending: 0 }),
        ]);
        // The second run found exactly what the first committed before handing over.
        if (expectedRuns === 2) expect(atStart[1]).toEqual(handedOver);
        expect(importRow(db, jobId).job_id).toBe(runs(db).at(-1)?.id);
        await engine.close();
      }
    },
  );

  it('a run that starts with its deadline already behind it hands over before settling anything, and the next run finishes', async () => {
    const { engine, db, clock } = await importEngine({ inventoryBatchLines: 100 });
    const file = exportFile(4);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let checks = 0;
    hooks.onStat = (path) => {
      if (path === file && ++checks === 1) clock.advance(2 * DEADLINE_MS);
    };
    await engine.runDue();
    await settle();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 4, imported: 4 },
    });
    expect(runs(db).map((r) => r.status)).toEqual(['completed', 'completed']);
    await engine.close();
  });
});

describe('which runs may touch an import', () => {
  it('a queued run of a paused import whose file is gone leaves it paused, and completes quietly', async () => {
    const { engine, db } = await importEngine();
    const file = exportFile(2);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.imports.pause({ agentId: 'target', jobId });
    rmSync(file);
    await engine.runDue();
    expect(importRow(db, jobId)).toMatchObject({ status: 'paused', error: null });
    expect(runs(db).map((r) => [r.status, JSON.parse(r.result ?? 'null')])).toEqual([
      ['completed', { skipped: 'paused' }],
    ]);
    await engine.close();
  });

  it.each([
    ['completed', [JSON.stringify(record(1))]],
    ['completed_with_rejections', [JSON.stringify(record(1)), '{"broken": ']],
  ] as const)(
    'a run delivered again after the import ended %s leaves it as it ended, even with its file gone',
    async (ended, lines) => {
      const { engine, db, clock } = await importEngine();
      const file = exportFile(0);
      writeExport(file, lines);
      const { jobId } = await engine.imports.start({ agentId: 'target', file });
      await engine.runDue();
      const before = importRow(db, jobId);
      expect(before.status).toBe(ended);
      // The process died after the import's final write and before the queue recorded the job done:
      // the same job is delivered again.
      db.prepare("UPDATE memory_jobs SET status = 'pending', result = NULL, completed_at = NULL WHERE id = ?").run(
        before.job_id,
      );
      rmSync(file);
      clock.advance(60_000);
      await engine.runDue();
      expect(importRow(db, jobId)).toEqual(before);
      expect(runs(db).map((r) => [r.status, JSON.parse(r.result ?? 'null')])).toEqual([
        ['completed', { skipped: ended }],
      ]);
      expect(await engine.transcripts.list({ agentId: 'target' })).toHaveLength(1);
      await engine.close();
    },
  );

  it('a dead run delivered again leaves its failed import failed until resume, even once the file is back', async () => {
    const { engine, db, clock } = await importEngine();
    const file = exportFile(2);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    rmSync(file);
    await engine.runDue();
    const failed = importRow(db, jobId);
    expect(failed).toMatchObject({ status: 'failed', error: `import file ${file} is gone` });
    writeExport(file, [JSON.stringify(record(0)), JSON.stringify(record(1))]);
    db.prepare("UPDATE memory_jobs SET status = 'pending', attempts = 0 WHERE id = ?").run(failed.job_id);
    clock.advance(60_000);
    await engine.runDue();
    expect(importRow(db, jobId)).toEqual(failed);
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
    await engine.close();
  });

  it('a superseded run (paused and resumed before it ran) skips; the import’s own run fails it when its file changed', async () => {
    const { engine, db } = await importEngine();
    const file = exportFile(2);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.imports.pause({ agentId: 'target', jobId });
    await engine.imports.resume({ agentId: 'target', jobId });
    writeExport(file, [JSON.stringify(record(5))]);
    await engine.runDue();
    const [superseded, own] = runs(db);
    expect(importRow(db, jobId)).toMatchObject({
      status: 'failed',
      job_id: own?.id,
      error: `import file ${file} changed since the import started`,
    });
    // The superseded run never looked at the file: it is done, not dead-lettered for the change.
    expect([superseded?.status, JSON.parse(superseded?.result ?? 'null')]).toEqual([
      'completed',
      { skipped: 'queued' },
    ]);
    expect([own?.status, own?.error]).toEqual(['dead', `import file ${file} changed since the import started`]);
    await engine.close();
  });

  it('a run whose import no longer exists completes without doing anything', async () => {
    const { engine, db } = await importEngine();
    const file = exportFile(2);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    db.prepare("UPDATE memory_jobs SET payload = json_object('importId', 'no-such-import')").run();
    await engine.runDue();
    expect(runs(db).map((r) => [r.status, r.attempts, JSON.parse(r.result ?? 'null')])).toEqual([
      ['completed', 1, { skipped: 'missing' }],
    ]);
    expect(importRow(db, jobId)).toMatchObject({ status: 'queued' });
    await engine.close();
  });

  it.each([
    ['no importId', '{}'],
    ['an importId that is not a string', '{"importId": 42}'],
  ])('a run whose payload has %s is dead at once, and its import says why', async (_case, payload) => {
    const { engine, db } = await importEngine();
    const file = exportFile(2);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    db.prepare('UPDATE memory_jobs SET payload = ?').run(payload);
    await engine.runDue();
    const [run] = runs(db);
    expect([run?.status, run?.attempts, run?.error]).toEqual(['dead', 1, 'transcript_import payload needs importId']);
    expect(importRow(db, jobId)).toMatchObject({
      status: 'failed',
      error: `import job ${run?.id} died: transcript_import payload needs importId; resume the import to continue from its last checkpoint`,
    });
    await engine.close();
  });
});

describe('a run whose lease is gone', () => {
  it('settles no further batch: the queue gave its job to another holder', async () => {
    const { engine, db, scheduler } = await importEngine({ batchRecords: 2 }, { heartbeatMs: 10 });
    const file = exportFile(6);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let opens = 0;
    let lost = false;
    hooks.onOpen = async (path) => {
      // The first opening reads the byte-order mark for the inventory; the second is settling's.
      if (path !== file || ++opens !== 2) return;
      db.prepare("UPDATE memory_jobs SET lease_token = 'another-holder' WHERE status = 'leased'").run();
      await scheduler.advance(10);
      lost = true;
    };
    await engine.runDue();
    await settle();
    expect(lost).toBe(true);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'running',
      inventoried: true,
      counters: { total: 6, imported: 0, pending: 6 },
    });
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
    await engine.close();
  });
});

describe('sessions an import brought in', () => {
  it('are removed with their own import only: two imports in one scope keep apart', async () => {
    const { engine } = await importEngine();
    const first = exportFile(0);
    const second = exportFile(0);
    writeExport(first, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    writeExport(second, [JSON.stringify(record(3)), JSON.stringify(record(4))]);
    const a = await engine.imports.start({ agentId: 'target', file: first });
    const b = await engine.imports.start({ agentId: 'target', file: second });
    await engine.runDue();
    const keys = async () => (await engine.transcripts.list({ agentId: 'target' })).map((s) => s.sessionKey).sort();
    expect(await keys()).toEqual(['session-1', 'session-2', 'session-3', 'session-4']);
    expect(await engine.imports.removeSource({ agentId: 'target', jobId: a.jobId })).toEqual({ removedSessions: 2 });
    expect(await keys()).toEqual(['session-3', 'session-4']);
    expect(await engine.imports.status({ agentId: 'target', jobId: b.jobId })).toMatchObject({ status: 'completed' });
    await engine.close();
  });
});

describe('a host call landing between a run’s batches', () => {
  /** The recorded result of each run, oldest first. */
  const results = (db: Database.Database) => runs(db).map((r) => JSON.parse(r.result ?? 'null') as unknown);

  it('pause and resume during the file check: the superseded run stops before marking the import running', async () => {
    const { engine, db } = await importEngine();
    const file = exportFile(3);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    const seen: Array<string | undefined> = [];
    hooks.onStat = async (path) => {
      if (path !== file) return;
      if (seen.length === 0) {
        await engine.imports.pause({ agentId: 'target', jobId });
        await engine.imports.resume({ agentId: 'target', jobId });
      }
      seen.push((await engine.imports.status({ agentId: 'target', jobId }))?.status);
    };
    await engine.runDue();
    // The new run found the import as resume left it: nothing had marked it running.
    expect(seen).toEqual(['queued', 'queued']);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 3, imported: 3 },
    });
    expect(results(db)).toEqual([{ stopped: true }, expect.objectContaining({ imported: 3 })]);
    hooks.onYield = undefined;
    await engine.close();
  });

  it('a pause after the last batch settled leaves the import paused, not completed; resumed, it completes', async () => {
    const { engine, db } = await importEngine({ batchRecords: 2 });
    const file = exportFile(4);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let paused = false;
    hooks.onYield = async () => {
      const status = await engine.imports.status({ agentId: 'target', jobId });
      if (paused || status?.counters.imported !== 4) return;
      paused = true;
      await engine.imports.pause({ agentId: 'target', jobId });
    };
    await engine.runDue();
    expect(paused).toBe(true);
    expect(importRow(db, jobId)).toMatchObject({ status: 'paused', completed_at: null });
    expect(results(db)).toEqual([{ stopped: true }]);
    await engine.imports.resume({ agentId: 'target', jobId });
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 4, imported: 4, pending: 0 },
    });
    hooks.onYield = undefined;
    await engine.close();
  });

  it('a hand-over that finds the import paused queues no new run', async () => {
    const { engine, db, clock } = await importEngine({ batchRecords: 2 });
    const file = exportFile(6);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let paused = false;
    hooks.onYield = async () => {
      const status = await engine.imports.status({ agentId: 'target', jobId });
      if (paused || (status?.counters.imported ?? 0) === 0) return;
      paused = true;
      await engine.imports.pause({ agentId: 'target', jobId });
      // The slice is used up too: the run hands over at this boundary, and must see the pause.
      clock.advance(DEADLINE_MS);
    };
    await engine.runDue();
    expect(paused).toBe(true);
    expect(results(db)).toEqual([{ stopped: true }]);
    expect(importRow(db, jobId)).toMatchObject({ status: 'paused', job_id: runs(db)[0]?.id });
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.counters).toMatchObject({
      imported: 2,
      pending: 4,
    });
    hooks.onYield = undefined;
    await engine.close();
  });

  it('a run whose import a newer run took over between batches writes no further batch', async () => {
    const { engine, db } = await importEngine({ batchRecords: 2 });
    const file = exportFile(6);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let taken = false;
    hooks.onYield = async () => {
      const status = await engine.imports.status({ agentId: 'target', jobId });
      if (taken || (status?.counters.imported ?? 0) === 0) return;
      taken = true;
      // Paused and resumed, and the new run has marked the import running (as its start does).
      await engine.imports.pause({ agentId: 'target', jobId });
      await engine.imports.resume({ agentId: 'target', jobId });
      db.prepare("UPDATE import_jobs SET status = 'running' WHERE id = ?").run(jobId);
    };
    const atNewRun: unknown[] = [];
    hooks.onStat = async (path) => {
      if (path === file && taken)
        atNewRun.push((await engine.imports.status({ agentId: 'target', jobId }))?.counters.imported);
    };
    await engine.runDue();
    // The old run stopped at the boundary: the new run found only its first batch settled.
    expect(atNewRun).toEqual([2]);
    expect(results(db)).toEqual([{ stopped: true }, expect.objectContaining({ imported: 6 })]);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 6, imported: 6, pending: 0 },
    });
    hooks.onYield = undefined;
    await engine.close();
  });
});

describe('the inventory’s batches', () => {
  it('commit inventoryBatchLines lines each: at every boundary the import holds a whole number of batches', async () => {
    const { engine } = await importEngine({ inventoryBatchLines: 3 });
    const file = exportFile(11);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    const atBoundary: number[] = [];
    hooks.onYield = async () => {
      const status = await engine.imports.status({ agentId: 'target', jobId });
      if (status && !status.inventoried) atBoundary.push(status.counters.total);
    };
    await engine.runDue();
    hooks.onYield = undefined;
    // The last, partial batch (lines 9 and 10) commits with the end of the inventory.
    expect(atBoundary).toEqual([3, 6, 9]);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 11, imported: 11 },
    });
    await engine.close();
  });
});
