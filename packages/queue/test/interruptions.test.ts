import { raw } from '@memory/store/sql';
import { describe, expect, it } from 'vitest';
import { createWorker, type Job, type JobHandler } from '../src/index.js';
import { settle } from '../src/testing/index.js';
import { setup } from './helpers.js';

/** A handler that runs until its signal aborts; `stubborn` ones ignore the abort and never finish. */
function longRunning(stubborn = false) {
  const started: string[] = [];
  const handler: JobHandler = (job, { signal }) =>
    new Promise((_resolve, reject) => {
      started.push(job.id);
      if (!stubborn) signal.addEventListener('abort', () => reject(signal.reason));
    });
  return { started, handler };
}

/** A process that leases the job and dies holding it: the lease expires and the reaper takes it back. */
function crashHolding(ctx: Awaited<ReturnType<typeof setup>>, jobType: string): void {
  expect(ctx.queue.lease([jobType], 'doomed-process')).toBeDefined();
  ctx.clock.advance(ctx.queue.config.leaseMs + 1);
  ctx.queue.reapExpiredLeases();
}

describe('interruptions are not failures', () => {
  it('a graceful close never consumes an attempt, however often it interrupts the job', async () => {
    const ctx = await setup({ closeDeadlineMs: 1000 });
    const { queue, scheduler, clock } = ctx;
    const { id } = queue.enqueue({ jobType: 'a' });
    for (let deploy = 0; deploy < 5; deploy++) {
      // Odd deploys meet a handler that ignores the abort and is released at the close deadline.
      const { started, handler } = longRunning(deploy % 2 === 1);
      const worker = createWorker({ queue, jobTypes: ['a'], scheduler, clock, handler });
      worker.start();
      await scheduler.runDue();
      await settle();
      expect(started).toEqual([id]);
      const closing = worker.close();
      await settle();
      await scheduler.advance(1000);
      expect(await closing).toEqual({ released: 1 });
      expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 0, leaseToken: null });
    }
    const worker = createWorker({ queue, jobTypes: ['a'], scheduler, clock, handler: async () => 'done' });
    expect(await worker.runOnce()).toBe(1);
    expect(queue.get(id)).toMatchObject({ status: 'completed', attempts: 1, result: 'done' });
  });

  it('counts expired leases as interruptions, apart from handler failures', async () => {
    const ctx = await setup({ maxAttempts: 3, retryBaseMs: 0 });
    const { queue } = ctx;
    const { id } = queue.enqueue({ jobType: 'a' });
    crashHolding(ctx, 'a');
    crashHolding(ctx, 'a');
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 2, maxInterruptions: 3 });
    // Two crashes used none of the three attempts: the handler still gets all of them.
    for (let failure = 1; failure <= 3; failure++) {
      const job = queue.lease(['a'], 'w');
      expect(job?.id).toBe(id);
      expect(queue.fail(id, job?.leaseToken ?? '', `failure ${failure}`)).toBe(failure < 3 ? 'pending' : 'dead');
    }
    expect(queue.get(id)).toMatchObject({ status: 'dead', attempts: 3, interruptions: 2, error: 'failure 3' });
  });

  it('dead-letters a job that kills its process every time after maxAttempts interruptions', async () => {
    const ctx = await setup({ maxAttempts: 3 });
    const { id } = ctx.queue.enqueue({ jobType: 'a' });
    for (let crash = 0; crash < 3; crash++) crashHolding(ctx, 'a');
    expect(ctx.queue.get(id)).toMatchObject({
      status: 'dead',
      interruptions: 3,
      error: expect.stringMatching(/interrupted 3 times/),
    });
  });

  it('never dead-letters a resumable job for being interrupted', async () => {
    const ctx = await setup({ maxAttempts: 3 });
    const { queue } = ctx;
    const { id } = queue.enqueue({ jobType: 'import', resumable: true });
    for (let crash = 0; crash < 10; crash++) crashHolding(ctx, 'import');
    expect(queue.recoverOnStartup()).toBe(0);
    expect(queue.get(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      interruptions: 10,
      maxInterruptions: null,
    });
    const job = queue.lease(['import'], 'w');
    queue.complete(id, job?.leaseToken ?? '', { finished: true });
    expect(queue.get(id)?.status).toBe('completed');
  });
});

describe('dead-letter hooks', () => {
  it('tell the owner, in the dead-lettering transaction, whichever path killed the job', async () => {
    const ctx = await setup({ maxAttempts: 1 });
    const { queue, store } = ctx;
    store.write((sql) => sql.run(raw('CREATE TABLE owners (job_id TEXT PRIMARY KEY, state TEXT NOT NULL)')));
    const died: Array<{ id: string; error: string | null }> = [];
    queue.onDead('a', (sql, job: Job) => {
      died.push({ id: job.id, error: job.error });
      sql.run(raw("UPDATE owners SET state = 'failed' WHERE job_id = ?", job.id));
    });
    const enqueue = () => {
      const { id } = queue.enqueue({ jobType: 'a' });
      store.write((sql) => sql.run(raw("INSERT INTO owners VALUES (?, 'running')", id)));
      return id;
    };
    // A handler failure on the last attempt.
    const failed = enqueue();
    queue.fail(failed, queue.lease(['a'], 'w')?.leaseToken ?? '', 'handler failed');
    // A crash on the last allowed interruption.
    const crashed = enqueue();
    crashHolding(ctx, 'a');
    // Found out of attempts at startup.
    const stranded = enqueue();
    store.database.prepare('UPDATE memory_jobs SET attempts = max_attempts WHERE id = ?').run(stranded);
    queue.recoverOnStartup();
    // Released as stale by an operator on its last attempt.
    const stale = enqueue();
    queue.lease(['a'], 'w');
    ctx.clock.advance(queue.config.leaseMs);
    queue.releaseStale({ apply: true });
    expect(died.map((d) => d.id)).toEqual([failed, crashed, stranded, stale]);
    expect(died.every((d) => d.error !== null)).toBe(true);
    expect(store.database.prepare('SELECT DISTINCT state FROM owners').all()).toEqual([{ state: 'failed' }]);
    // Another type's death is not this hook's business; a failing hook never keeps a job alive.
    queue.onDead('b', () => {
      throw new Error('owner hook broke');
    });
    const other = queue.enqueue({ jobType: 'b' }).id;
    queue.fail(other, queue.lease(['b'], 'w')?.leaseToken ?? '', 'x', { permanent: true });
    expect(queue.get(other)?.status).toBe('dead');
    expect(died).toHaveLength(4);
  });
});

describe('job errors carry no driver text', () => {
  it('records a database failure inside a handler as a generic database error', async () => {
    const { queue, scheduler, clock, store } = await setup({ maxAttempts: 1 });
    const viaStore = queue.enqueue({ jobType: 'a' }).id;
    const viaDriver = queue.enqueue({ jobType: 'a' }).id;
    const handler: JobHandler = async (job) => {
      if (job.id === viaStore) store.write((sql) => sql.run(raw('INSERT INTO secret_table_name VALUES (1)')));
      else store.database.prepare('SELECT * FROM another_secret_table').all();
    };
    const worker = createWorker({ queue, jobTypes: ['a'], scheduler, clock, handler });
    await worker.runOnce();
    for (const id of [viaStore, viaDriver]) {
      const job = queue.get(id);
      expect(job?.status).toBe('dead');
      expect(job?.error).toMatch(/database/);
      expect(job?.error).not.toMatch(/secret_table|no such table/i);
    }
    expect(worker.status().lastError).not.toMatch(/secret_table|no such table/);
    expect(queue.health()[0]?.lastError).not.toMatch(/secret_table|no such table/);
  });
});
