import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { record, SMALL_LIMITS, turnUntil, writeExport } from './import-fixtures.js';

const DRIVER_TEXT = /SQLITE|constraint failed|UNIQUE|secret trigger/i;

/** An engine whose imports may read files from a fresh directory (its spool directory). */
async function importEngine(limits: Record<string, number> = SMALL_LIMITS) {
  const dir = mkdtempSync(join(tmpdir(), 'memory-import-hardening-'));
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    config: { imports: { ...limits, spoolDirectory: dir } },
  });
  return { engine, db, clock, scheduler, dir };
}

const jobRows = (db: Database.Database) =>
  db.prepare("SELECT status, error FROM memory_jobs WHERE job_type = 'transcript_import'").all() as Array<{
    status: string;
    error: string | null;
  }>;

describe('import session keys', () => {
  it('resolves key collisions deterministically, rejects the unresolvable per record, and never stalls', async () => {
    const { engine, db, dir } = await importEngine();
    // Sessions already in the scope hold every key the last record could use.
    for (const sessionKey of ['q', 'q#1', 'q#s:1'])
      await engine.transcripts.append({ agentId: 'target', sessionKey, turns: [{ role: 'user', content: 'hi' }] });
    const long = 'L'.repeat(510);
    const lines = [
      record(1, { id: '2', source: 's1', session_key: 'k' }), // k
      record(2, { id: '2', source: 's2', session_key: 'k' }), // k#2
      record(3, { id: '2', source: 's3', session_key: 'k' }), // k#s3:2
      record(4, { id: '9', source: 's1', session_key: 'k#2' }), // its own key is taken: k#2#9
      record(5, { id: 'x', source: 's1', session_key: 'm#2' }), // m#2
      record(6, { id: '2', source: 's4', session_key: 'm' }), // m
      record(7, { id: '2', source: 's5', session_key: 'm' }), // m#2 is taken: m#s5:2
      record(8, { id: '1', source: 's', session_key: 'q' }), // q, q#1 and q#s:1 are all taken
      record(9, { id: 'a', source: 's1', session_key: long }), // the long key itself
      record(10, { id: 'abc', source: 's2', session_key: long }), // every fallback is over 512 characters
      record(11, { id: 'c1', session_key: 'bell\u0007key' }), // control character
      record(12, { id: 'c2', session_key: 'lone\ud800surrogate' }),
      record(13, { id: 'c3', session_key: 'x'.repeat(513) }),
      record(14, { id: 'last', session_key: 'after-the-rejections' }),
    ].map((r) => JSON.stringify(r));
    const file = join(dir, 'collisions.jsonl');
    writeExport(file, lines);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    const status = await engine.imports.status({ agentId: 'target', jobId });
    expect(status).toMatchObject({
      status: 'completed_with_rejections',
      error: null,
      counters: { total: 14, imported: 9, duplicate: 0, rejected: 5, pending: 0 },
    });
    const records = await engine.imports.records({ agentId: 'target', jobId });
    expect(records.map((r) => [r.outcome, r.sessionKey ?? r.reason])).toEqual([
      ['imported', 'k'],
      ['imported', 'k#2'],
      ['imported', 'k#s3:2'],
      ['imported', 'k#2#9'],
      ['imported', 'm#2'],
      ['imported', 'm'],
      ['imported', 'm#s5:2'],
      ['rejected', 'session_key_conflict'],
      ['imported', long],
      ['rejected', 'session_key_conflict'],
      ['rejected', 'invalid_session_key'],
      ['rejected', 'invalid_session_key'],
      ['rejected', 'invalid_session_key'],
      ['imported', 'after-the-rejections'],
    ]);
    // Every key an import wrote can be read back through the public API.
    for (const r of records.filter((x) => x.outcome === 'imported'))
      expect(await engine.transcripts.get({ agentId: 'target', sessionKey: r.sessionKey ?? '' })).toBeDefined();
    expect(jobRows(db)).toEqual([{ status: 'completed', error: null }]);
  });

  it('rejects one record whose write the database refuses, keeps its batch, and leaks no driver text', async () => {
    const { engine, db, dir } = await importEngine({ ...SMALL_LIMITS, batchRecords: 25 });
    db.exec(`CREATE TRIGGER refuse_boom BEFORE INSERT ON session_transcripts WHEN NEW.session_key = 'boom'
             BEGIN SELECT RAISE(ABORT, 'secret trigger text'); END`);
    const file = join(dir, 'refused.jsonl');
    writeExport(file, [
      JSON.stringify(record(1)),
      JSON.stringify(record(2, { session_key: 'boom' })),
      JSON.stringify(record(3)),
    ]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    const status = await engine.imports.status({ agentId: 'target', jobId });
    expect(status?.counters).toEqual({ total: 3, imported: 2, duplicate: 0, rejected: 1, pending: 0 });
    const records = await engine.imports.records({ agentId: 'target', jobId });
    expect(records.map((r) => r.reason)).toEqual([null, 'write_failed', null]);
    expect(JSON.stringify({ status, records, jobs: jobRows(db) })).not.toMatch(DRIVER_TEXT);
    const diagnostics = await engine.diagnostics();
    expect(JSON.stringify(diagnostics)).not.toMatch(DRIVER_TEXT);
  });
});

describe('one rule for session keys', () => {
  it('is applied by transcripts on the way in and out, as by imports', async () => {
    const { engine } = await createTestEngine();
    const turns = [{ role: 'user' as const, content: 'hello' }];
    for (const sessionKey of ['lone\ud800surrogate', 'bell\u0007key', 'x'.repeat(513), '']) {
      await expect(engine.transcripts.append({ agentId: 'a', sessionKey, turns }), sessionKey).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
      await expect(engine.transcripts.get({ agentId: 'a', sessionKey }), sessionKey).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    const longest = 'k'.repeat(512);
    await engine.transcripts.append({ agentId: 'a', sessionKey: longest, turns });
    expect(await engine.transcripts.get({ agentId: 'a', sessionKey: longest })).toBeDefined();
  });
});

describe('import inputs', () => {
  it('accepts a leading UTF-8 byte-order mark', async () => {
    const { engine, dir } = await importEngine();
    const file = join(dir, 'bom.jsonl');
    writeFileSync(file, `\uFEFF${JSON.stringify(record(1))}\n${JSON.stringify(record(2))}\n`);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.counters).toEqual({
      total: 2,
      imported: 2,
      duplicate: 0,
      rejected: 0,
      pending: 0,
    });
    const [first] = await engine.imports.records({ agentId: 'target', jobId });
    expect(first).toMatchObject({ line: 0, byteOffset: 3, sessionKey: 'session-1' });
  });

  it('stops with a clear status when a line changed in place (same size) since it was inventoried', async () => {
    const { engine, scheduler, dir } = await importEngine({ ...SMALL_LIMITS, maxRecordBytes: 1_000_000 });
    const file = join(dir, 'rewritten.jsonl');
    writeExport(
      file,
      Array.from({ length: 40 }, (_, n) => JSON.stringify(record(n + 10))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.start();
    await scheduler.runDue();
    const ref = { agentId: 'target', jobId };
    await turnUntil(async () => ((await engine.imports.status(ref))?.counters.imported ?? 0) > 0);
    await engine.imports.pause(ref);
    await settle(20);
    const paused = await engine.imports.status(ref);
    expect(paused?.inventoried).toBe(true);
    expect(paused?.counters.pending).toBeGreaterThan(2);
    // Rewrite the last line in place: same length, different content.
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('Question 49:', 'Question 94:'));
    expect(readFileSync(file).length).toBe(Buffer.byteLength(text));
    await engine.imports.resume(ref);
    await turnUntil(async () => (await engine.imports.status(ref))?.status !== 'queued', {
      step: () => scheduler.advance(10),
    });
    await turnUntil(async () => (await engine.imports.status(ref))?.status !== 'running', {
      step: () => scheduler.advance(10),
    });
    const stopped = await engine.imports.status(ref);
    expect(stopped).toMatchObject({ status: 'failed', error: expect.stringMatching(/line 39 .*changed/) });
    expect(stopped?.counters).toMatchObject({ total: 40, imported: 39, pending: 1 });
    expect(await engine.transcripts.get({ agentId: 'target', sessionKey: 'session-49' })).toBeUndefined();
    await engine.close();
  });

  it('imports regular files inside the allowed directories only', async () => {
    const spoolDirectory = mkdtempSync(join(tmpdir(), 'memory-spool-'));
    const exportsDir = mkdtempSync(join(tmpdir(), 'memory-exports-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'memory-elsewhere-'));
    const line = [JSON.stringify(record(1))];
    for (const d of [spoolDirectory, exportsDir, elsewhere]) writeExport(join(d, 'export.jsonl'), line);
    symlinkSync(join(elsewhere, 'export.jsonl'), join(exportsDir, 'escape.jsonl'));
    mkdirSync(join(exportsDir, 'a-directory.jsonl'));
    execFileSync('mkfifo', [join(exportsDir, 'pipe.jsonl')]);
    const { engine } = await createTestEngine({
      config: { imports: { spoolDirectory, allowedDirectories: [exportsDir] } },
    });
    for (const file of [join(spoolDirectory, 'export.jsonl'), join(exportsDir, 'export.jsonl')])
      expect(await engine.imports.start({ agentId: 'a', file })).toHaveProperty('jobId');
    for (const file of [
      '/proc/self/environ',
      '/etc/passwd',
      join(elsewhere, 'export.jsonl'),
      join(exportsDir, 'escape.jsonl'), // a symlink out of the allowed directory
      join(exportsDir, '..', 'x', 'export.jsonl'),
      join(exportsDir, 'a-directory.jsonl'),
      join(exportsDir, 'pipe.jsonl'),
    ]) {
      await expect(engine.imports.start({ agentId: 'a', file }), file).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
    // Outside the allowed directories, a missing file and an existing one get the same answer.
    const message = (file: string) =>
      engine.imports.start({ agentId: 'a', file }).then(
        () => 'accepted',
        (e: Error) => e.message,
      );
    expect((await message('/etc/passwd')).replace('passwd', 'no-such-file')).toBe(await message('/etc/no-such-file'));
    // With no directory configured at all, files cannot be imported.
    const bare = await createTestEngine();
    await expect(
      bare.engine.imports.start({ agentId: 'a', file: join(exportsDir, 'export.jsonl') }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT', message: expect.stringMatching(/allowedDirectories/) });
  });
});

describe('import scope', () => {
  it('answers every import call outside its scope exactly as for an import that does not exist', async () => {
    const { engine, dir } = await importEngine();
    const file = join(dir, 'scoped.jsonl');
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    const { jobId } = await engine.imports.start({ agentId: 'owner', file });
    await engine.runDue();
    const calls = {
      records: (ref: { agentId: string; jobId: string }) => engine.imports.records(ref),
      pause: (ref: { agentId: string; jobId: string }) => engine.imports.pause(ref),
      resume: (ref: { agentId: string; jobId: string }) => engine.imports.resume(ref),
      cancel: (ref: { agentId: string; jobId: string }) => engine.imports.cancel(ref),
      removeSource: (ref: { agentId: string; jobId: string }) => engine.imports.removeSource(ref),
    };
    for (const [name, call] of Object.entries(calls)) {
      const foreign = await call({ agentId: 'intruder', jobId }).catch((e: unknown) => e);
      const missing = await call({ agentId: 'intruder', jobId: 'no-such-import' }).catch((e: unknown) => e);
      expect(foreign, name).toMatchObject({ code: 'NOT_FOUND' });
      expect(missing, name).toMatchObject({ code: 'NOT_FOUND' });
      expect((foreign as Error).message.replace(jobId, 'X'), name).toBe(
        (missing as Error).message.replace('no-such-import', 'X'),
      );
      // A bare job id is refused: the scope is never optional.
      await expect(call({ jobId } as never), name).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    }
    expect(await engine.imports.status({ agentId: 'intruder', jobId })).toBeUndefined();
    await expect(engine.imports.status({ jobId } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    // Nothing the intruder tried changed the owner's import.
    expect(await engine.imports.status({ agentId: 'owner', jobId })).toMatchObject({
      status: 'completed',
      counters: { imported: 2 },
    });
    expect(await engine.transcripts.list({ agentId: 'owner' })).toHaveLength(2);
    expect(await engine.imports.records({ agentId: 'owner', jobId })).toHaveLength(2);
  });
});

describe('a long import', () => {
  it('runs as a series of runs that each hand over before the job deadline, never failing an attempt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-import-slices-'));
    // Every reading of the clock moves it 1 s on: with a 30 s deadline, a run uses up its slice fast.
    let now = T0;
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      clock: { now: () => (now += 1000) },
      config: {
        imports: { ...SMALL_LIMITS, spoolDirectory: dir },
        queue: { jobDeadlineMs: 30_000, heartbeatMs: 5000, leaseMs: 20_000 },
      },
    });
    const file = join(dir, 'long.jsonl');
    writeExport(
      file,
      Array.from({ length: 60 }, (_, n) => JSON.stringify(record(n))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'completed',
      counters: { total: 60, imported: 60, pending: 0 },
    });
    const runs = db
      .prepare("SELECT status, attempts, error FROM memory_jobs WHERE job_type = 'transcript_import'")
      .all() as Array<{ status: string; attempts: number; error: string | null }>;
    expect(runs.length).toBeGreaterThan(2);
    expect(runs.every((r) => r.status === 'completed' && r.attempts === 1 && r.error === null)).toBe(true);
  });
});

describe('an import whose job dies', () => {
  it('is marked failed with the reason, and resumes through imports.resume', async () => {
    const { engine, db, dir } = await importEngine();
    const file = join(dir, 'dies.jsonl');
    writeExport(
      file,
      Array.from({ length: 6 }, (_, n) => JSON.stringify(record(n))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    // The state an import was left in by three interruptions under the old accounting: its job is
    // pending with no attempts left, and startup recovery dead-letters it.
    db.prepare("UPDATE memory_jobs SET attempts = max_attempts WHERE job_type = 'transcript_import'").run();
    await engine.runDue();
    const ref = { agentId: 'target', jobId };
    expect(await engine.imports.status(ref)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/job .* (died|dead)/),
      counters: { pending: 0, total: 0 },
    });
    expect((await engine.imports.resume(ref)).status).toBe('queued');
    await engine.runDue();
    expect(await engine.imports.status(ref)).toMatchObject({
      status: 'completed',
      error: null,
      counters: { total: 6, imported: 6, pending: 0 },
    });
  });
});
