import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { record, writeExport } from './import-fixtures.js';

// A host's pause, cancel or removal can land while a run awaits the file check, after the run
// decided to start but before it marks the import running. The run must re-check inside its write
// and stop (found by mutation testing of src/imports/run-import.ts: the guard in that write was
// never exercised). The file check is given a hook here to land the host's call at that moment.
const hooks = vi.hoisted(() => ({
  duringFileCheck: undefined as (() => Promise<unknown>) | undefined,
  failOpen: undefined as string | undefined,
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    stat: async (...args: Parameters<typeof real.stat>) => {
      const hook = hooks.duringFileCheck;
      hooks.duringFileCheck = undefined;
      await hook?.();
      return real.stat(...args);
    },
    // Opening the import file fails while `failOpen` names it (as with too many open files).
    open: async (...args: Parameters<typeof real.open>) => {
      if (hooks.failOpen !== undefined && String(args[0]) === hooks.failOpen)
        throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      return real.open(...args);
    },
  };
});

describe('a host call landing while a run checks the file', () => {
  it.each([
    ['pause', 'paused'],
    ['cancel', 'cancelled'],
    ['removeSource', 'removed'],
  ] as const)('%s: the run stops before marking the import running, nothing imported', async (move, status) => {
    const clock = createManualClock(T0);
    const { engine } = await createTestEngine({
      database: { database: new Database(':memory:') },
      clock,
      scheduler: createManualScheduler(clock),
      config: { imports: { allowedDirectories: [tmpdir()] } },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'memory-import-races-')), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    let landed = false;
    hooks.duringFileCheck = async () => {
      await engine.imports[move]({ agentId: 'target', jobId });
      landed = true;
    };
    await engine.runDue();
    await settle();
    expect(landed).toBe(true);
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status,
      counters: { total: 0, imported: 0 },
    });
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([]);
  });
});

describe('an import run that keeps failing', () => {
  it('dead-letters: the import says failed and why, and resume continues it from its checkpoint', async () => {
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const { engine } = await createTestEngine({
      database: { database: new Database(':memory:') },
      clock,
      scheduler,
      config: { imports: { allowedDirectories: [tmpdir()] }, queue: { maxAttempts: 2 } },
    });
    const file = join(mkdtempSync(join(tmpdir(), 'memory-import-races-')), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    hooks.failOpen = file;
    try {
      for (let i = 0; i < 50 && (await engine.imports.status({ agentId: 'target', jobId }))?.status !== 'failed'; i++) {
        await engine.runDue();
        await scheduler.advance(60_000);
        await settle();
      }
    } finally {
      hooks.failOpen = undefined;
    }
    const failed = await engine.imports.status({ agentId: 'target', jobId });
    expect(failed?.status).toBe('failed');
    expect(failed?.error).toMatch(
      /^import job \S+ died: .*EMFILE: too many open files.*; resume the import to continue from its last checkpoint$/,
    );
    // The file never opened: nothing was located or written.
    expect(failed?.counters).toMatchObject({ total: 0, imported: 0 });
    await engine.imports.resume({ agentId: 'target', jobId });
    for (
      let i = 0;
      i < 50 && (await engine.imports.status({ agentId: 'target', jobId }))?.status !== 'completed';
      i++
    ) {
      await engine.runDue();
      await settle();
    }
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      error: null,
      counters: { total: 2, imported: 2, pending: 0 },
    });
  });
});
