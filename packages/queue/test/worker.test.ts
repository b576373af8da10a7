import { createSeededRandom } from '@memory/core';
import { describe, expect, it } from 'vitest';
import {
  createAdmission,
  createReaper,
  createWorker,
  type JobHandler,
  PermanentJobError,
  pollBackoff,
  RetryJobError,
} from '../src/index.js';
import { drainQueue, settle, waitForJob } from '../src/testing/index.js';
import { setup } from './helpers.js';

/** A handler whose calls the test resolves or rejects by hand. */
function controllable() {
  const calls: Array<{
    jobId: string;
    signal: AbortSignal;
    resolve: (v: unknown) => void;
    reject: (e: unknown) => void;
  }> = [];
  const handler: JobHandler = (job, { signal }) =>
    new Promise((resolve, reject) => {
      calls.push({ jobId: job.id, signal, resolve, reject });
    });
  return { calls, handler };
}

describe('worker runtime', () => {
  it('polls, runs the handler and completes jobs with their results', async () => {
    const { queue, scheduler, clock } = await setup();
    const seen: unknown[] = [];
    const worker = createWorker({
      queue,
      jobTypes: ['echo'],
      scheduler,
      clock,
      handler: async (job) => {
        seen.push(job.payload);
        return { echoed: job.payload };
      },
    });
    const ids = [1, 2, 3].map((n) => queue.enqueue({ jobType: 'echo', payload: { n } }).id);
    worker.start();
    await drainQueue(queue, { scheduler });
    expect(seen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    for (const [i, id] of ids.entries())
      expect(queue.get(id)).toMatchObject({ status: 'completed', result: { echoed: { n: i + 1 } } });
    expect(worker.status()).toMatchObject({ state: 'running', completed: 3, failed: 0, inFlight: 0 });
    await worker.close();
    expect(worker.status().state).toBe('closed');
  });

  it('maps RetryJobError, PermanentJobError and plain errors onto fail()', async () => {
    const { queue, scheduler, clock } = await setup({ retryBaseMs: 1000 });
    const worker = createWorker({
      queue,
      jobTypes: ['x'],
      scheduler,
      clock,
      handler: async (job) => {
        const kind = (job.payload as { kind: string }).kind;
        if (kind === 'retry') throw new RetryJobError('rate limited', 120_000);
        if (kind === 'permanent') throw new PermanentJobError('document was deleted');
        throw new Error('flaky');
      },
    });
    const retry = queue.enqueue({ jobType: 'x', payload: { kind: 'retry' } });
    const permanent = queue.enqueue({ jobType: 'x', payload: { kind: 'permanent' } });
    const flaky = queue.enqueue({ jobType: 'x', payload: { kind: 'flaky' } });
    await worker.runOnce();
    expect(queue.get(retry.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'rate limited',
      runAt: clock.now() + 120_000,
    });
    expect(queue.get(permanent.id)).toMatchObject({ status: 'dead', attempts: 1, error: 'document was deleted' });
    expect(queue.get(flaky.id)).toMatchObject({
      status: 'pending',
      attempts: 1,
      error: 'flaky',
      runAt: clock.now() + 1000,
    });
    expect(worker.status()).toMatchObject({ failed: 3, consecutiveFailures: 3, lastError: 'flaky' });
  });

  it('heartbeats long jobs so they are not reaped, and aborts at the deadline', async () => {
    const { queue, scheduler, clock } = await setup({ leaseMs: 10_000, heartbeatMs: 3000, jobDeadlineMs: 60_000 });
    const { calls, handler } = controllable();
    const worker = createWorker({ queue, jobTypes: ['slow'], scheduler, clock, handler });
    const reaper = createReaper({ queue, scheduler });
    const { id } = queue.enqueue({ jobType: 'slow' });
    worker.start();
    reaper.start();
    await scheduler.runDue();
    await settle();
    expect(calls).toHaveLength(1);
    await scheduler.advance(40_000); // four lease periods: only heartbeats keep it
    expect(queue.get(id)?.status).toBe('leased');
    expect(queue.get(id)?.leaseExpiresAt).toBeGreaterThan(clock.now());
    await scheduler.advance(20_000); // deadline
    expect(calls[0]?.signal.aborted).toBe(true);
    calls[0]?.reject(calls[0].signal.reason);
    const failed = await waitForJob(queue, id, 'pending', { scheduler });
    expect(failed).toMatchObject({ attempts: 1, error: 'deadline of 60000 ms exceeded' });
    reaper.stop();
    await worker.close({ deadlineMs: 0 });
  });

  it('aborts the handler when its lease is lost (cancelled) and does not complete the job', async () => {
    const { queue, scheduler, clock } = await setup({ heartbeatMs: 1000 });
    const { calls, handler } = controllable();
    const worker = createWorker({ queue, jobTypes: ['x'], scheduler, clock, handler });
    const { id } = queue.enqueue({ jobType: 'x' });
    worker.start();
    await scheduler.runDue();
    await settle();
    queue.cancel({ ids: [id], apply: true });
    await scheduler.advance(1000);
    expect(calls[0]?.signal.aborted).toBe(true);
    expect(calls[0]?.signal.reason).toMatchObject({ code: 'LEASE_LOST' });
    calls[0]?.resolve('done anyway');
    await settle();
    expect(queue.get(id)).toMatchObject({ status: 'cancelled', result: null });
    await worker.close();
  });

  it('backs off polling after consecutive failures: min(1 s·2^n, 30 s) + jitter below 500 ms', async () => {
    const random = createSeededRandom(3);
    const delays = [1, 2, 3, 5, 8].map((n) => pollBackoff(n, random));
    expect(delays.map((d) => Math.floor(d / 1000) * 1000)).toEqual([2000, 4000, 8000, 30000, 30000]);
    for (const d of delays) expect(d % 1000 < 500 || d >= 30000).toBe(true);

    const { queue, scheduler, clock } = await setup({ retryBaseMs: 0, maxAttempts: 10, pollIntervalMs: 100 });
    const leaseTimes: number[] = [];
    const worker = createWorker({
      queue,
      jobTypes: ['x'],
      scheduler,
      clock,
      random: createSeededRandom(1),
      handler: async () => {
        leaseTimes.push(clock.now());
        throw new Error('down');
      },
    });
    queue.enqueue({ jobType: 'x' });
    worker.start();
    for (let step = 0; step < 200; step++) {
      await scheduler.advance(100);
      await settle();
    }
    const gaps = leaseTimes.slice(1).map((t, i) => t - (leaseTimes[i] ?? 0));
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    // Each gap is at least the backoff for the failures so far, and they grow.
    for (const [i, gap] of gaps.entries()) expect(gap).toBeGreaterThanOrEqual(1000 * 2 ** (i + 1));
    await worker.close();
  });

  it('respects concurrency and a shared admission limit across workers', async () => {
    const { queue, scheduler, clock } = await setup();
    const admission = createAdmission({ documentIngest: 2, llm: 2 });
    let running = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    const handler: JobHandler = () =>
      new Promise((resolve) => {
        running++;
        peak = Math.max(peak, running);
        release.push(() => {
          running--;
          resolve(null);
        });
      });
    const workers = ['w1', 'w2'].map((workerId) =>
      createWorker({
        queue,
        jobTypes: ['llm'],
        scheduler,
        clock,
        handler,
        concurrency: 3,
        admission: admission.llm,
        workerId,
      }),
    );
    for (let i = 0; i < 8; i++) queue.enqueue({ jobType: 'llm' });
    for (const w of workers) w.start();
    for (let round = 0; round < 20 && queue.health()[0]?.completed !== 8; round++) {
      await scheduler.runDue();
      await settle();
      expect(running).toBeLessThanOrEqual(2);
      release.shift()?.();
      await settle();
    }
    expect(peak).toBe(2);
    expect(queue.health()[0]).toMatchObject({ completed: 8 });
    expect(() => createAdmission({ documentIngest: 2, llm: 17 })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    for (const w of workers) await w.close();
  });

  it('keeps one job type from blocking another', async () => {
    const { queue, scheduler, clock } = await setup();
    const stuck = controllable();
    const docs = createWorker({ queue, jobTypes: ['docs'], scheduler, clock, handler: stuck.handler });
    const hints = createWorker({ queue, jobTypes: ['hints'], scheduler, clock, handler: async () => 'ok' });
    for (let i = 0; i < 3; i++) queue.enqueue({ jobType: 'docs' });
    const h = queue.enqueue({ jobType: 'hints' });
    docs.start();
    hints.start();
    await waitForJob(queue, h.id, 'completed', { scheduler });
    const health = Object.fromEntries(queue.health().map((x) => [x.jobType, x]));
    expect(health['docs']).toMatchObject({ leased: 1, pending: 2 });
    expect(health['hints']).toMatchObject({ completed: 1 });
    await docs.close({ deadlineMs: 0 });
    await hints.close();
  });
});

describe('worker close', () => {
  it('returns within its deadline under load with no job left leased', async () => {
    const { queue, scheduler, clock } = await setup({ closeDeadlineMs: 5000 });
    const obedient = controllable();
    const stubborn = controllable();
    const a = createWorker({ queue, jobTypes: ['a'], scheduler, clock, handler: obedient.handler, concurrency: 4 });
    const b = createWorker({ queue, jobTypes: ['b'], scheduler, clock, handler: stubborn.handler, concurrency: 4 });
    for (let i = 0; i < 20; i++) queue.enqueue({ jobType: i % 2 ? 'a' : 'b' });
    a.start();
    b.start();
    await scheduler.runDue();
    await settle();
    expect(obedient.calls).toHaveLength(4);
    expect(stubborn.calls).toHaveLength(4);
    // The obedient handler stops at its abort checkpoint; the stubborn one ignores the signal.
    for (const call of obedient.calls) call.signal.addEventListener('abort', () => call.reject(call.signal.reason));
    const closingA = a.close();
    const closingB = b.close();
    expect(await closingA).toEqual({ released: 4 });
    let bDone = false;
    void closingB.then(() => {
      bDone = true;
    });
    await settle();
    expect(bDone).toBe(false); // still within its deadline, waiting
    await scheduler.advance(5000);
    expect(await closingB).toEqual({ released: 4 });
    const health = queue.health();
    expect(health.reduce((n, h) => n + h.leased, 0)).toBe(0);
    expect(health.reduce((n, h) => n + h.pending, 0)).toBe(20);
    // Interrupted jobs keep their attempt (they started), so a job that always hangs still runs out.
    expect(queue.health().every((h) => h.dead === 0)).toBe(true);
    stubborn.calls[0]?.resolve('too late'); // a late finish changes nothing
    await settle();
    expect(queue.health().reduce((n, h) => n + h.completed, 0)).toBe(0);
    expect(a.close()).toBe(closingA); // coalesced
  });

  it('completes a job whose handler finished just as close began', async () => {
    const { queue, scheduler, clock } = await setup();
    const { calls, handler } = controllable();
    const worker = createWorker({ queue, jobTypes: ['a'], scheduler, clock, handler });
    const { id } = queue.enqueue({ jobType: 'a' });
    worker.start();
    await scheduler.runDue();
    await settle();
    const closing = worker.close();
    calls[0]?.resolve('finished');
    expect(await closing).toEqual({ released: 0 });
    expect(queue.get(id)).toMatchObject({ status: 'completed', result: 'finished' });
  });
});
