import { closeSync, mkdtempSync, openSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { createManualClock, createManualScheduler } from '@memory/core';
import { settle } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';
import { mixedExport, record, SMALL_LIMITS, turnUntil, writeExport } from './import-fixtures.js';

const dir = () => mkdtempSync(join(tmpdir(), 'memory-import-'));

async function importEngine(limits: Record<string, number> = SMALL_LIMITS) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    config: { imports: { ...limits, allowedDirectories: [tmpdir()] } },
  });
  return { engine, db, clock, scheduler };
}

describe('signet-export v1 import', () => {
  it('gives every non-blank line exactly one outcome, with reason codes, and counters that reconcile', async () => {
    const { engine } = await importEngine();
    const file = join(dir(), 'export.jsonl');
    const { lines, expected } = mixedExport();
    writeExport(file, lines);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    expect(await engine.imports.status({ agentId: 'target', jobId })).toMatchObject({
      status: 'queued',
      counters: { total: 0 },
    });
    expect(await engine.imports.status({ agentId: 'another-scope', jobId })).toBeUndefined();
    await engine.runDue();
    const status = await engine.imports.status({ agentId: 'target', jobId });
    expect(status).toMatchObject({ status: 'completed_with_rejections', inventoried: true, completedAt: T0 });
    expect(status?.counters).toEqual({ total: 13, imported: 4, duplicate: 1, rejected: 8, pending: 0 });
    const records = await engine.imports.records({ agentId: 'target', jobId });
    expect(records.map((r) => [r.outcome, r.reason])).toEqual(expected);
    expect(records.map((r) => r.line)).toEqual(Array.from({ length: 13 }, (_, i) => i));
  });

  it('preserves content, roles, projects and timestamps exactly, in the target scope only', async () => {
    const { engine } = await importEngine();
    const file = join(dir(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(9, { session_key: 'session-1' }))]);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    const t = await engine.transcripts.get({ agentId: 'target', sessionKey: 'session-1' });
    expect(t).toMatchObject({
      project: 'alpha',
      harness: 'claude-code',
      createdAt: Date.UTC(2024, 0, 2, 12),
      completedAt: Date.UTC(2024, 0, 2, 12),
    });
    expect(t?.turns.map((x) => [x.role, x.content])).toEqual([
      ['user', 'Question 1:  keep   these   spaces\nand this second line'],
      ['assistant', 'Answer 1.\n\n- bullet one\n- bullet two'],
    ]);
    // A second record with the same session key gets its own session.
    expect((await engine.transcripts.get({ agentId: 'target', sessionKey: 'session-1#rec-9' }))?.turns).toHaveLength(2);
    expect(await engine.transcripts.get({ agentId: 'someone-else', sessionKey: 'session-1' })).toBeUndefined();
    expect((await engine.transcripts.search({ agentId: 'target', query: 'bullet' })).length).toBe(2); // one assistant turn per session
    expect(
      (await engine.imports.records({ agentId: 'target', jobId, outcome: 'imported' })).map((r) => r.sessionKey),
    ).toEqual(['session-1', 'session-1#rec-9']);
  });

  it('reports a replay as duplicates, not new evidence', async () => {
    const { engine, db } = await importEngine();
    const file = join(dir(), 'export.jsonl');
    writeExport(file, mixedExport().lines);
    await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    const before = db.prepare('SELECT count(*) AS n FROM session_transcript_turns').get();
    const again = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    expect((await engine.imports.status({ agentId: 'target', jobId: again.jobId }))?.counters).toEqual({
      total: 13,
      imported: 0,
      duplicate: 5,
      rejected: 8,
      pending: 0,
    });
    expect(db.prepare('SELECT count(*) AS n FROM session_transcript_turns').get()).toEqual(before);
  });

  it('pauses and resumes at batch boundaries, and cancels', async () => {
    const { engine, scheduler } = await importEngine({ ...SMALL_LIMITS, maxRecordBytes: 1_000_000, maxMessages: 100 });
    const file = join(dir(), 'export.jsonl');
    writeExport(
      file,
      Array.from({ length: 40 }, (_, n) => JSON.stringify(record(n))),
    );
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.start();
    await scheduler.runDue();
    // Real file I/O: wait (in event-loop turns, bounded in time) for the first committed batch.
    await turnUntil(
      async () => ((await engine.imports.status({ agentId: 'target', jobId }))?.counters.imported ?? 0) > 0,
    );
    const paused = await engine.imports.pause({ agentId: 'target', jobId });
    expect(paused.status).toBe('paused');
    for (let i = 0; i < 20; i++) await settle();
    const whilePaused = await engine.imports.status({ agentId: 'target', jobId });
    expect(whilePaused?.counters.imported).toBeGreaterThan(0);
    expect(whilePaused?.counters.pending).toBeGreaterThan(0);
    await settle();
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.counters).toEqual(whilePaused?.counters); // nothing moves while paused
    await expect(engine.imports.pause({ agentId: 'target', jobId })).rejects.toMatchObject({ code: 'CONFLICT' });
    await engine.imports.resume({ agentId: 'target', jobId });
    // The import reads its file with real I/O: give the event loop turns, not just virtual time.
    await turnUntil(async () => (await engine.imports.status({ agentId: 'target', jobId }))?.status === 'completed', {
      step: () => scheduler.advance(10),
    });
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.counters).toEqual({
      total: 40,
      imported: 40,
      duplicate: 0,
      rejected: 0,
      pending: 0,
    });

    const second = await engine.imports.start({ agentId: 'other', file });
    expect((await engine.imports.cancel({ agentId: 'other', jobId: second.jobId })).status).toBe('cancelled');
    await scheduler.advance(5000);
    await settle();
    expect((await engine.imports.status({ agentId: 'other', jobId: second.jobId }))?.counters.imported).toBe(0);
    expect(await engine.transcripts.list({ agentId: 'other' })).toEqual([]);
    await engine.close();
  });

  it('removes an imported source: evidence and index gone, tombstones kept', async () => {
    const { engine, db } = await importEngine();
    const file = join(dir(), 'export.jsonl');
    writeExport(file, mixedExport().lines);
    const { jobId } = await engine.imports.start({ agentId: 'target', file });
    await engine.runDue();
    await engine.transcripts.append({
      agentId: 'target',
      sessionKey: 'live',
      turns: [{ role: 'user', content: 'bullet points are mine' }],
    });
    // Knowledge Dreaming distilled from an imported conversation cites it.
    const [imported] = await engine.transcripts.list({ agentId: 'target', completed: true });
    const evidence = db
      .prepare('SELECT session_key AS key, content FROM session_transcripts WHERE agent_id = ? AND session_key = ?')
      .get('target', imported?.sessionKey) as { key: string; content: string };
    const entity = await engine.dreaming.apply({
      agentId: 'target',
      operations: [
        {
          operation: 'create_entity',
          payload: { name: 'Imported Topic' },
          evidence: [{ sourceRef: `transcript:${evidence.key}`, quote: evidence.content.slice(0, 30) }],
        },
      ],
    });
    expect(entity.applied).toHaveLength(1);
    expect(await engine.imports.removeSource({ agentId: 'target', jobId })).toEqual({ removedSessions: 4 });
    expect(
      db.prepare("SELECT kind, subject_ref AS subject FROM dreaming_attention WHERE agent_id = 'target'").all(),
    ).toEqual([{ kind: 'review_due', subject: `entity:${entity.applied[0]?.targetId}` }]);
    expect(await engine.transcripts.list({ agentId: 'target' })).toEqual([
      expect.objectContaining({ sessionKey: 'live' }),
    ]);
    expect(await engine.transcripts.search({ agentId: 'target', query: 'bullet', completedOnly: false })).toEqual([
      expect.objectContaining({ sessionKey: 'live' }),
    ]);
    expect(db.prepare('SELECT count(*) AS n FROM import_tombstones').get()).toEqual({ n: 4 });
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.status).toBe('removed');
  });

  it('imports from a stream by spooling it to the configured directory first', async () => {
    const spoolDirectory = dir();
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({
      database: { database: db },
      config: { imports: { ...SMALL_LIMITS, spoolDirectory } },
    });
    const { lines } = mixedExport();
    const { jobId } = await engine.imports.start({
      agentId: 'target',
      stream: Readable.from(lines.map((l) => `${l}\n`)),
    });
    await engine.runDue();
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.counters).toEqual({
      total: 13,
      imported: 4,
      duplicate: 1,
      rejected: 8,
      pending: 0,
    });
    expect((await engine.imports.status({ agentId: 'target', jobId }))?.file.startsWith(spoolDirectory)).toBe(true);
    const noSpool = await importEngine();
    await expect(noSpool.engine.imports.start({ agentId: 'a', stream: Readable.from(['{}\n']) })).rejects.toMatchObject(
      { code: 'INVALID_INPUT', message: expect.stringMatching(/spoolDirectory/) },
    );
    await expect(
      noSpool.engine.imports.start({ agentId: 'a', file: '/x.jsonl', stream: Readable.from([]) }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('rejects bad starts and fails cleanly when the file changes under it', async () => {
    const { engine } = await importEngine();
    await expect(engine.imports.start({ agentId: 'a', file: 'relative.jsonl' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.imports.start({ agentId: 'a', file: join(dir(), 'missing.jsonl') })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(
      engine.imports.start({ agentId: 'a', file: '/tmp/x', duplicateMode: 'replace' } as never),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const file = join(dir(), 'export.jsonl');
    writeExport(file, [JSON.stringify(record(1))]);
    const { jobId } = await engine.imports.start({ agentId: 'a', file });
    writeExport(file, [JSON.stringify(record(1)), JSON.stringify(record(2))]);
    await engine.runDue();
    expect(await engine.imports.status({ agentId: 'a', jobId })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/changed/),
    });
  });

  it('never loads a large export whole: oversized lines are hashed as they stream past', async () => {
    const { engine } = await importEngine({ maxRecordBytes: 16 * 1024 * 1024 });
    const file = join(dir(), 'big.jsonl');
    const fd = openSync(file, 'w');
    const filler = Buffer.alloc(1024 * 1024, 'a');
    for (let r = 0; r < 6; r++) {
      writeSync(fd, '{"id":"huge","pad":"');
      for (let i = 0; i < 20; i++) writeSync(fd, filler); // 20 MiB per line, over the 16 MiB cap
      writeSync(fd, '"}\n');
    }
    writeSync(fd, `${JSON.stringify(record(1))}\n`);
    closeSync(fd);
    global.gc?.();
    const before = process.memoryUsage().rss;
    const { jobId } = await engine.imports.start({ agentId: 'a', file });
    await engine.runDue();
    const growth = process.memoryUsage().rss - before;
    expect((await engine.imports.status({ agentId: 'a', jobId }))?.counters).toEqual({
      total: 7,
      imported: 1,
      duplicate: 0,
      rejected: 6,
      pending: 0,
    });
    expect(
      (await engine.imports.records({ agentId: 'a', jobId, outcome: 'rejected' })).every(
        (r) => r.reason === 'oversized_record',
      ),
    ).toBe(true);
    expect(growth).toBeLessThan(64 * 1024 * 1024); // the file is 120 MiB
  });
});
