import { createManualClock, createManualScheduler } from '@memory/core';
import { settle, waitForJob } from '@memory/queue/testing';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSeededRandom, type JobHandler, RetryJobError } from '../src/index.js';
import { createTestEngine, jobsById, T0 } from './helpers.js';

async function engineWithScheduler(config = {}) {
  const db = new Database(':memory:');
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const { engine } = await createTestEngine({
    database: { database: db },
    clock,
    scheduler,
    random: createSeededRandom(9),
    config,
  });
  return { engine, clock, scheduler, db };
}

describe('engine background work', () => {
  it('runs host jobs through registered handlers once started, and reports them in diagnostics', async () => {
    const { engine, scheduler } = await engineWithScheduler();
    const handled: unknown[] = [];
    engine.jobs.registerHandler({
      jobTypes: ['send_digest'],
      name: 'digest',
      handler: async (job) => handled.push(job.payload),
    });
    const { id } = await engine.jobs.enqueue({ jobType: 'send_digest', payload: { to: 'dana' } });
    await scheduler.advance(5000);
    await settle();
    expect(handled).toEqual([]); // nothing runs before start()
    await engine.start();
    await engine.start(); // idempotent
    await waitForJob(jobsById(engine), id, 'completed', { scheduler });
    expect(handled).toEqual([{ to: 'dana' }]);
    const diagnostics = await engine.diagnostics();
    expect(diagnostics.started).toBe(true);
    expect(diagnostics.queue).toEqual([expect.objectContaining({ jobType: 'send_digest', completed: 1, pending: 0 })]);
    expect(diagnostics.workers).toEqual([
      expect.objectContaining({ workerId: 'connector-sync', jobTypes: ['connector_sync'], state: 'running' }),
      expect.objectContaining({
        workerId: 'document-ingest',
        jobTypes: ['document_ingest'],
        state: 'running',
        completed: 0,
      }),
      expect.objectContaining({
        workerId: 'transcript-import',
        jobTypes: ['transcript_import'],
        state: 'running',
        completed: 0,
      }),
      expect.objectContaining({ workerId: 'maintenance', jobTypes: ['maintenance'], state: 'running' }),
      expect.objectContaining({ workerId: 'digest', state: 'running', completed: 1 }),
    ]);
    expect(diagnostics.providers.llm).toEqual({ available: false, reason: expect.stringMatching(/no llm/) });
    expect(diagnostics.providers.embedder.available).toBe(false);
    await engine.close();
  });

  it('runDue does due work without start(), for hosts that drive work themselves', async () => {
    const { engine } = await engineWithScheduler();
    let calls = 0;
    engine.jobs.registerHandler({ jobTypes: ['tick'], handler: async () => ++calls });
    await engine.jobs.enqueue({ jobType: 'tick' });
    await engine.jobs.enqueue({ jobType: 'tick' });
    expect(await engine.runDue()).toEqual({ reaped: 0, ran: 2 });
    expect(calls).toBe(2);
    expect((await engine.diagnostics()).started).toBe(false);
    await engine.close();
  });

  it('reaps a lost lease on its 60 s schedule, then the job runs again', async () => {
    const { engine, scheduler, db } = await engineWithScheduler({ queue: { leaseMs: 30_000, heartbeatMs: 10_000 } });
    const { id } = await engine.jobs.enqueue({ jobType: 'work' });
    // A worker from a process that died: the row says leased, with an expiry in the past soon.
    db.prepare(
      "UPDATE memory_jobs SET status = 'leased', attempts = 1, lease_token = 'dead', lease_expires_at = ?, leased_at = ?, leased_by = 'ghost' WHERE id = ?",
    ).run(T0 + 30_000, T0, id);
    let ran = 0;
    engine.jobs.registerHandler({ jobTypes: ['work'], handler: async () => ++ran });
    await engine.start();
    await scheduler.advance(59_000);
    await settle();
    expect((await engine.jobs.get({ id }))?.status).toBe('leased');
    await scheduler.advance(1000); // the reaper's first run
    await settle();
    await scheduler.advance(1000); // the worker's next poll
    await settle();
    // The lost lease was an interruption: its attempt was given back and counted apart.
    expect(await engine.jobs.get({ id })).toMatchObject({ status: 'completed', attempts: 1, interruptions: 1 });
    expect(ran).toBe(1);
    await engine.close();
  });

  it('dead-letters jobs found pending without attempts when started', async () => {
    const { engine, db } = await engineWithScheduler();
    const { id } = await engine.jobs.enqueue({ jobType: 'work' });
    db.prepare('UPDATE memory_jobs SET attempts = 3 WHERE id = ?').run(id);
    await engine.start();
    expect(await engine.jobs.get({ id })).toMatchObject({ status: 'dead' });
    await engine.close();
  });

  it('exposes queue repairs as dry runs unless applied', async () => {
    const { engine } = await engineWithScheduler();
    engine.jobs.registerHandler({
      jobTypes: ['flaky'],
      handler: async () => {
        throw new RetryJobError('later', 1);
      },
    });
    const { id } = await engine.jobs.enqueue({ jobType: 'flaky', maxAttempts: 1 });
    await engine.runDue();
    expect((await engine.jobs.get({ id }))?.status).toBe('dead');
    expect(await engine.repair.requeueDead()).toMatchObject({ applied: false, matched: 1 });
    expect((await engine.jobs.get({ id }))?.status).toBe('dead');
    await engine.repair.requeueDead({ apply: true });
    expect(await engine.jobs.get({ id })).toMatchObject({ status: 'pending', attempts: 0 });
    expect(await engine.repair.cancel({ apply: true })).toMatchObject({ matched: 1 });
    expect(await engine.repair.prune()).toEqual({ applied: false, completed: 0, dead: 0 });
    expect(await engine.repair.reapExpiredLeases()).toEqual({ requeued: 0, dead: 0 });
    await engine.close();
  });

  it('refuses reserved or duplicate job types and bad registrations', async () => {
    const { engine } = await engineWithScheduler();
    const handler: JobHandler = async () => null;
    expect(() => engine.jobs.registerHandler({ jobTypes: ['document_ingest'], handler })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    engine.jobs.registerHandler({ jobTypes: ['mine'], handler });
    expect(() => engine.jobs.registerHandler({ jobTypes: ['mine'], handler })).toThrow(
      expect.objectContaining({ code: 'CONFLICT' }),
    );
    expect(() => engine.jobs.registerHandler({ jobTypes: [], handler })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    expect(() => engine.jobs.registerHandler({ jobTypes: ['x'] } as never)).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
    await engine.close();
    expect(() => engine.jobs.registerHandler({ jobTypes: ['y'], handler })).toThrow(
      expect.objectContaining({ code: 'ENGINE_CLOSED' }),
    );
  });

  it('close under load aborts in-flight jobs, waits for them and leaves nothing leased', async () => {
    const { engine, scheduler, db } = await engineWithScheduler();
    engine.jobs.registerHandler({
      jobTypes: ['long'],
      concurrency: 3,
      handler: (_job, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
    });
    for (let i = 0; i < 10; i++) await engine.jobs.enqueue({ jobType: 'long' });
    await engine.start();
    await scheduler.runDue();
    await settle();
    expect(db.prepare("SELECT count(*) AS n FROM memory_jobs WHERE status = 'leased'").get()).toEqual({ n: 3 });
    await engine.close();
    expect(db.prepare('SELECT status, count(*) AS n FROM memory_jobs GROUP BY status').all()).toEqual([
      { status: 'pending', n: 10 },
    ]);
    await expect(engine.runDue()).rejects.toMatchObject({ code: 'ENGINE_CLOSED' });
  });
});
