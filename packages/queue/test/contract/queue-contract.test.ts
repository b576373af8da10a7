// The queue's behaviour, once, on every backend: SQLite, PGlite, and a real PostgreSQL server when
// one is configured. Each operation is the same program on each; what differs is only how it runs.
import { isMemoryError } from '@memory/core';
import { type Program, perDialect, raw, run } from '@memory/store/sql';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createReaper, createWorker, type JobHandler } from '../../src/index.js';
import { drainQueue, settle, waitForJob } from '../../src/testing/index.js';
import { BACKENDS, numbered, T0 } from './backends.js';

const lost = (promise: Promise<unknown>) => expect(promise).rejects.toMatchObject({ code: 'LEASE_LOST' });

/** A dead-letter hook program: records the dead job in the owner's table (or fails after writing). */
const note = (fail = false) =>
  function* (job: { id: string; error: string | null }): Program<void> {
    const text = 'INSERT INTO queue_test_dead (job_id, error) VALUES (?, ?)';
    yield* run(perDialect(raw(text, job.id, job.error), raw(numbered(text), job.id, job.error)));
    if (fail) throw new Error('the owner could not record it');
  };

describe.each(BACKENDS)('queue contract on $name', (backend) => {
  // A backend that is not configured here is reported as skipped, with its reason in the title.
  const test = backend.skip ? it.skip : it;
  beforeAll(() => (backend.skip ? undefined : backend.beforeAll()), 120_000);
  afterAll(() => (backend.skip ? undefined : backend.afterAll()));
  afterEach(() => (backend.skip ? undefined : backend.afterEach()));
  if (backend.skip) it.skip(`skipped: ${backend.skip}`, () => undefined);

  describe('enqueue', () => {
    test('adds a pending job with defaults', async () => {
      const { queue } = await backend.setup();
      const { id, deduped } = await queue.enqueue({
        jobType: 'document_ingest',
        payload: { documentId: 'd1' },
        agentId: 'bot',
      });
      expect(deduped).toBe(false);
      expect(await queue.get(id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        maxAttempts: 3,
        interruptions: 0,
        maxInterruptions: 3,
        runAt: T0,
        payload: { documentId: 'd1' },
        agentId: 'bot',
      });
    });

    test('dedups a pending or leased job with the same type and key, and not a finished one', async () => {
      const { queue } = await backend.setup();
      const first = await queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' });
      expect(await queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' })).toEqual({ id: first.id, deduped: true });
      expect((await queue.enqueue({ jobType: 'other', dedupKey: 'memory:1' })).deduped).toBe(false);
      const leased = await queue.lease(['hints'], 'w');
      expect(await queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' })).toEqual({ id: first.id, deduped: true });
      await queue.complete(first.id, leased?.leaseToken ?? '');
      expect((await queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' })).deduped).toBe(false);
    });

    test('concurrent enqueues of one key leave one live job, and every caller gets its id', async () => {
      const { queue, sql } = await backend.setup();
      const results = await Promise.all(
        Array.from({ length: 8 }, () => queue.enqueue({ jobType: 'hints', dedupKey: 'memory:7' })),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(results.filter((r) => !r.deduped)).toHaveLength(1);
      expect(await sql('SELECT id FROM memory_jobs')).toHaveLength(1);
    });

    test('rejects bad input', async () => {
      const { queue } = await backend.setup({ maxPayloadBytes: 100 });
      for (const bad of [
        {},
        { jobType: '' },
        { jobType: 'x', payload: 'y'.repeat(200) },
        { jobType: 'x', maxAttempts: 0 },
      ])
        await expect(queue.enqueue(bad as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      const cyclic: Record<string, unknown> = {};
      cyclic['self'] = cyclic;
      await expect(queue.enqueue({ jobType: 'x', payload: cyclic })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    });
  });

  describe('lease', () => {
    test('takes the oldest eligible job across types, sets the lease and counts the attempt', async () => {
      const { queue, clock } = await backend.setup();
      const a = await queue.enqueue({ jobType: 'a' });
      clock.advance(10);
      const b = await queue.enqueue({ jobType: 'b' });
      await queue.enqueue({ jobType: 'a', runAt: T0 + 1_000_000 });
      const job = await queue.lease(['b', 'a'], 'w1');
      expect(job?.id).toBe(a.id);
      expect(await queue.get(a.id)).toMatchObject({
        status: 'leased',
        attempts: 1,
        leasedBy: 'w1',
        leasedAt: clock.now(),
        leaseExpiresAt: clock.now() + 60_000,
        leaseToken: job?.leaseToken,
      });
      expect(job?.leaseToken).toBeTruthy();
      expect((await queue.lease(['a', 'b'], 'w2'))?.id).toBe(b.id);
      expect(await queue.lease(['a', 'b'], 'w3')).toBeUndefined();
      expect(await queue.lease([], 'w3')).toBeUndefined();
    });

    test('breaks a run_at tie by insert order, not by id or by the order the types are listed', async () => {
      for (const types of [
        ['a', 'b'],
        ['b', 'a'],
      ]) {
        const { queue } = await backend.setup();
        // Twelve jobs: sequential ids j-10.. sort before j-2 as text, so only insert order is right.
        const ids: string[] = [];
        for (let i = 0; i < 12; i++) ids.push((await queue.enqueue({ jobType: i % 2 ? 'a' : 'b', runAt: T0 })).id);
        const leased: string[] = [];
        for (let job = await queue.lease(types, 'w'); job; job = await queue.lease(types, 'w')) leased.push(job.id);
        expect(leased).toEqual(ids);
        await backend.afterEach();
      }
    });

    test('an older run_at in a later-listed type beats a newer one in an earlier-listed type', async () => {
      const { queue } = await backend.setup();
      await queue.enqueue({ jobType: 'a', runAt: T0 - 5 });
      const older = await queue.enqueue({ jobType: 'b', runAt: T0 - 10 });
      expect((await queue.lease(['a', 'b'], 'w'))?.id).toBe(older.id);
    });

    test('never hands out a job before its run_at', async () => {
      const { queue, clock } = await backend.setup();
      const later = await queue.enqueue({ jobType: 'a', runAt: T0 + 500 });
      expect(await queue.lease(['a'], 'w')).toBeUndefined();
      clock.advance(500);
      expect((await queue.lease(['a'], 'w'))?.id).toBe(later.id);
    });

    test('concurrent leases never hand one job out twice', async () => {
      const { queue } = await backend.setup();
      for (let i = 0; i < 20; i++) await queue.enqueue({ jobType: 'a' });
      const leased = (await Promise.all(Array.from({ length: 30 }, (_, i) => queue.lease(['a'], `w${i}`)))).filter(
        (j) => j !== undefined,
      );
      expect(leased).toHaveLength(20);
      expect(new Set(leased.map((j) => j.id)).size).toBe(20);
    });
  });

  describe('heartbeat / complete / fail / release with lease tokens', () => {
    test('heartbeat extends the lease; complete stores the result and clears the lease', async () => {
      const { queue, clock } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      const token = (await queue.lease(['a'], 'w'))?.leaseToken ?? '';
      clock.advance(30_000);
      expect(await queue.heartbeat(id, token)).toBe(clock.now() + 60_000);
      await queue.complete(id, token, { chunks: 3 });
      expect(await queue.get(id)).toMatchObject({
        status: 'completed',
        result: { chunks: 3 },
        completedAt: clock.now(),
        leaseToken: null,
        leasedAt: null,
        leaseExpiresAt: null,
        leasedBy: null,
      });
    });

    test('a stale token (reaped lease) gets LEASE_LOST from complete, fail, heartbeat and release, and changes nothing', async () => {
      const { queue, clock } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      const first = await queue.lease(['a'], 'w1');
      clock.advance(60_001);
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
      const second = await queue.lease(['a'], 'w2');
      const before = await queue.get(id);
      await lost(queue.complete(id, first?.leaseToken ?? '', 'late'));
      await lost(queue.fail(id, first?.leaseToken ?? '', 'late'));
      await lost(queue.heartbeat(id, first?.leaseToken ?? ''));
      await lost(queue.release(id, first?.leaseToken ?? ''));
      expect(await queue.get(id)).toEqual(before);
      await queue.complete(id, second?.leaseToken ?? '');
      expect((await queue.get(id))?.status).toBe('completed');
      await lost(queue.complete(id, second?.leaseToken ?? ''));
      await expect(queue.heartbeat('j-999999', 'x')).rejects.toMatchObject({
        code: 'LEASE_LOST',
        details: { jobId: 'j-999999', status: 'missing' },
      });
    });

    test('two completions of one job racing: one wins, the other gets LEASE_LOST; heartbeats racing both succeed', async () => {
      const { queue, clock } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      const token = (await queue.lease(['a'], 'w'))?.leaseToken ?? '';
      clock.advance(1000);
      const beats = await Promise.all([queue.heartbeat(id, token), queue.heartbeat(id, token)]);
      expect(beats).toEqual([clock.now() + 60_000, clock.now() + 60_000]);
      const outcomes = await Promise.allSettled([
        queue.complete(id, token, { by: 1 }),
        queue.complete(id, token, { by: 2 }),
        queue.heartbeat(id, token),
      ]);
      const completed = outcomes.slice(0, 2).filter((o) => o.status === 'fulfilled');
      expect(completed).toHaveLength(1);
      for (const o of outcomes) if (o.status === 'rejected') expect(isMemoryError(o.reason, 'LEASE_LOST')).toBe(true);
      const job = await queue.get(id);
      expect(job?.status).toBe('completed');
      expect([{ by: 1 }, { by: 2 }]).toContainEqual(job?.result);
    });

    test('fail retries with backoff while attempts remain, then dead-letters', async () => {
      const { queue, clock } = await backend.setup({ retryBaseMs: 1000, retryMaxMs: 3000 });
      const { id } = await queue.enqueue({ jobType: 'a' });
      const delays: number[] = [];
      for (let attempt = 1; attempt <= 3; attempt++) {
        const job = await queue.lease(['a'], 'w');
        expect(job?.attempts).toBe(attempt);
        const status = await queue.fail(id, job?.leaseToken ?? '', `boom ${attempt}`);
        const now = await queue.get(id);
        expect(now).toMatchObject({ leaseToken: null, leasedAt: null });
        if (attempt < 3) {
          expect(status).toBe('pending');
          delays.push((now?.runAt ?? 0) - clock.now());
          expect(await queue.lease(['a'], 'w')).toBeUndefined();
          clock.set(now?.runAt ?? 0);
        } else {
          expect(status).toBe('dead');
        }
      }
      expect(delays).toEqual([1000, 2000]);
      expect(await queue.get(id)).toMatchObject({ status: 'dead', error: 'boom 3', failedAt: clock.now() });
    });

    test('permanent failures and explicit retry delays', async () => {
      const { queue, clock } = await backend.setup();
      const a = await queue.enqueue({ jobType: 'a' });
      const leasedA = await queue.lease(['a'], 'w');
      expect(await queue.fail(a.id, leasedA?.leaseToken ?? '', 'bad payload', { permanent: true })).toBe('dead');
      const b = await queue.enqueue({ jobType: 'a' });
      const leasedB = await queue.lease(['a'], 'w');
      await queue.fail(b.id, leasedB?.leaseToken ?? '', 'rate limited', { retryDelayMs: 42_000 });
      expect((await queue.get(b.id))?.runAt).toBe(clock.now() + 42_000);
    });

    test('release hands the job back untried (attempt refunded) or tried', async () => {
      const { queue } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      let job = await queue.lease(['a'], 'w');
      await queue.release(id, job?.leaseToken ?? '');
      expect(await queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null });
      job = await queue.lease(['a'], 'w');
      await queue.release(id, job?.leaseToken ?? '', { attemptConsumed: true });
      expect(await queue.get(id)).toMatchObject({ status: 'pending', attempts: 1 });
    });
  });

  describe('reaping, interruptions and recovery', () => {
    test('reaps expired leases to pending (lease fields cleared, attempt given back, one interruption) or dead', async () => {
      const { queue, clock } = await backend.setup({ maxAttempts: 2 });
      const a = await queue.enqueue({ jobType: 'a' });
      const b = await queue.enqueue({ jobType: 'a', maxAttempts: 1 });
      const c = await queue.enqueue({ jobType: 'a' });
      const r = await queue.enqueue({ jobType: 'a', resumable: true, maxAttempts: 1 });
      await queue.lease(['a'], 'w');
      await queue.lease(['a'], 'w');
      clock.advance(30_000);
      await queue.lease(['a'], 'w'); // c: leased later, not expired at the reap below
      await queue.lease(['a'], 'w'); // r: resumable, never dies of interruptions
      clock.advance(30_000);
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 1 });
      const cleared = { leaseToken: null, leaseExpiresAt: null, leasedAt: null, leasedBy: null };
      expect(await queue.get(a.id)).toMatchObject({
        ...cleared,
        status: 'pending',
        attempts: 0,
        error: 'lease expired',
        interruptions: 1,
        maxInterruptions: 2,
      });
      expect(await queue.get(b.id)).toMatchObject({ ...cleared, status: 'dead', attempts: 0, interruptions: 1 });
      expect((await queue.get(c.id))?.status).toBe('leased');
      clock.advance(30_000);
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 2, dead: 0 });
      expect(await queue.get(r.id)).toMatchObject({ status: 'pending', interruptions: 1, maxInterruptions: null });
      expect((await queue.lease(['a'], 'w2'))?.id).toBe(a.id);
    });

    test('a poison job that crashes its worker every time dies after max interruptions and never blocks the others', async () => {
      const { queue, clock } = await backend.setup();
      const poison = await queue.enqueue({ jobType: 'a' });
      const others: string[] = [];
      for (let i = 0; i < 5; i++) others.push((await queue.enqueue({ jobType: 'a' })).id);
      const order: string[] = [];
      for (let round = 0; round < 50; round++) {
        const job = await queue.lease(['a'], 'worker');
        if (!job) {
          clock.advance(60_001);
          const reaped = await queue.reapExpiredLeases();
          if (reaped.requeued + ((await queue.health())[0]?.pending ?? 0) === 0) break;
          continue;
        }
        order.push(job.id);
        if (job.id === poison.id) continue; // the worker dies holding the lease
        await queue.complete(job.id, job.leaseToken ?? '');
      }
      expect(await queue.get(poison.id)).toMatchObject({
        status: 'dead',
        attempts: 0,
        interruptions: 3,
        error: 'interrupted 3 times: its lease expired each time (the process running it died or hung)',
      });
      for (const id of others) expect((await queue.get(id))?.status).toBe('completed');
      expect(order.slice(0, 6)).toEqual([poison.id, ...others]);
    });

    test('startup recovery dead-letters pending jobs that are already out of attempts', async () => {
      const { queue, sql } = await backend.setup();
      const stuck = await queue.enqueue({ jobType: 'a' });
      const fine = await queue.enqueue({ jobType: 'a' });
      await sql('UPDATE memory_jobs SET attempts = max_attempts WHERE id = ?', stuck.id);
      expect((await queue.lease(['a'], 'w'))?.id).toBe(fine.id);
      expect(await queue.recoverOnStartup()).toBe(1);
      expect(await queue.get(stuck.id)).toMatchObject({
        status: 'dead',
        error: 'found pending with no attempts left at startup',
      });
      expect(await queue.recoverOnStartup()).toBe(0);
    });
  });

  describe('dead-letter hooks (programs, in the dead-lettering transaction)', () => {
    test('tell the owner on every path, in the same commit; a failing hook rolls back alone', async () => {
      const { queue, clock, sql } = await backend.setup({ maxAttempts: 1 });
      queue.onDead('owned', note());
      queue.onDead('flaky', note(true));
      await expect(Promise.resolve().then(() => queue.onDead('owned', note()))).rejects.toMatchObject({
        code: 'CONFLICT',
      });
      const failed = await queue.enqueue({ jobType: 'owned' });
      let job = await queue.lease(['owned'], 'w');
      expect(await queue.fail(failed.id, job?.leaseToken ?? '', 'broken')).toBe('dead');
      const reaped = await queue.enqueue({ jobType: 'owned' });
      await queue.lease(['owned'], 'w');
      clock.advance(60_001);
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 0, dead: 1 });
      const flaky = await queue.enqueue({ jobType: 'flaky' });
      job = await queue.lease(['flaky'], 'w');
      expect(await queue.fail(flaky.id, job?.leaseToken ?? '', 'also broken')).toBe('dead');
      expect((await queue.get(flaky.id))?.status).toBe('dead');
      const notes = await sql<{ job_id: string; error: string }>(
        'SELECT job_id, error FROM queue_test_dead ORDER BY job_id',
      );
      expect(notes).toEqual(
        [
          { job_id: failed.id, error: 'broken' },
          {
            job_id: reaped.id,
            error: 'interrupted 1 times: its lease expired each time (the process running it died or hung)',
          },
        ].sort((x, y) => x.job_id.localeCompare(y.job_id)),
      );
    });
  });

  describe('repairs (dry-run unless applied)', () => {
    test('requeueDead reports, then resets attempts when applied', async () => {
      const { queue } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      const job = await queue.lease(['a'], 'w');
      await queue.fail(id, job?.leaseToken ?? '', 'x', { permanent: true });
      expect(await queue.requeueDead()).toMatchObject({
        operation: 'requeueDead',
        applied: false,
        matched: 1,
        remaining: 0,
        jobs: [{ id, jobType: 'a', status: 'dead' }],
      });
      expect((await queue.get(id))?.status).toBe('dead');
      expect((await queue.requeueDead({ apply: true })).applied).toBe(true);
      expect(await queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 0 });
    });

    test('cancel during a lease makes the holder’s completion LEASE_LOST', async () => {
      const { queue } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'a' });
      const job = await queue.lease(['a'], 'w');
      expect((await queue.cancel({ ids: [id] })).matched).toBe(1);
      expect((await queue.get(id))?.status).toBe('leased');
      await queue.cancel({ ids: [id], apply: true });
      expect(await queue.get(id)).toMatchObject({ status: 'cancelled', leaseToken: null });
      await lost(queue.complete(id, job?.leaseToken ?? ''));
      await lost(queue.heartbeat(id, job?.leaseToken ?? ''));
      expect((await queue.get(id))?.status).toBe('cancelled');
    });

    test('releaseStale frees leases held too long even while heartbeating; out of attempts means dead', async () => {
      const { queue, clock, sql } = await backend.setup({ maxAttempts: 1 });
      queue.onDead('b', note());
      const { id } = await queue.enqueue({ jobType: 'a', maxAttempts: 2 });
      const last = await queue.enqueue({ jobType: 'b' });
      const job = await queue.lease(['a'], 'stuck');
      const lastJob = await queue.lease(['b'], 'stuck');
      for (let i = 0; i < 5; i++) {
        clock.advance(50_000);
        await queue.heartbeat(id, job?.leaseToken ?? '');
        await queue.heartbeat(last.id, lastJob?.leaseToken ?? '');
      }
      expect(await queue.reapExpiredLeases()).toEqual({ requeued: 0, dead: 0 });
      expect((await queue.releaseStale({ olderThanMs: 200_000 })).matched).toBe(2);
      await queue.releaseStale({ olderThanMs: 200_000, apply: true });
      expect(await queue.get(id)).toMatchObject({ status: 'pending', attempts: 1, leaseToken: null });
      expect(await queue.get(last.id)).toMatchObject({ status: 'dead', error: 'lease released as stale by repair' });
      expect(await sql('SELECT job_id FROM queue_test_dead')).toEqual([{ job_id: last.id }]);
    });

    test('limits work per call and reports what remains; filters by type, id and document', async () => {
      const { queue } = await backend.setup();
      for (let i = 0; i < 7; i++) await queue.enqueue({ jobType: i % 2 ? 'a' : 'b' });
      expect(await queue.cancel({ jobType: 'b', limit: 2, apply: true })).toMatchObject({ matched: 2, remaining: 2 });
      expect((await queue.health()).find((h) => h.jobType === 'b')).toMatchObject({ pending: 2, cancelled: 2 });
      expect((await queue.health()).find((h) => h.jobType === 'a')).toMatchObject({ pending: 3, cancelled: 0 });
      const doc = await queue.enqueue({ jobType: 'a', documentId: 'doc-1' });
      expect(await queue.cancel({ documentId: 'doc-1' })).toMatchObject({ matched: 1, jobs: [{ id: doc.id }] });
      expect(await queue.cancel({ ids: [] })).toMatchObject({ matched: 0, remaining: 0 });
    });

    test('prune archives terminal jobs past retention, then deletes them; dry-run only counts', async () => {
      const { queue, clock, sql } = await backend.setup({ pruneBatchSize: 2 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await queue.enqueue({ jobType: 'a' })).id);
      for (const id of ids.slice(0, 3)) {
        const job = await queue.lease(['a'], 'w');
        await queue.complete(id, job?.leaseToken ?? '');
      }
      const deadJob = await queue.lease(['a'], 'w');
      await queue.fail(ids[3] ?? '', deadJob?.leaseToken ?? '', 'x', { permanent: true });
      clock.advance(15 * 86_400_000);
      expect(await queue.prune()).toEqual({ applied: false, completed: 3, dead: 0 });
      clock.advance(16 * 86_400_000);
      expect(await queue.prune({ apply: true })).toEqual({ applied: true, completed: 3, dead: 1 });
      expect(await sql('SELECT id FROM memory_jobs')).toEqual([{ id: ids[4] }]);
      const archived = await sql<{ id: string; status: string; row_json: string }>(
        'SELECT id, status, row_json FROM memory_jobs_archive ORDER BY id',
      );
      expect(archived.map((a) => a.status).sort()).toEqual(['completed', 'completed', 'completed', 'dead']);
      expect(JSON.parse(archived.find((a) => a.id === ids[0])?.row_json ?? '{}')).toMatchObject({
        id: ids[0],
        job_type: 'a',
        status: 'completed',
        attempts: 1,
        interruptions: 0,
        max_interruptions: 3,
        error: null,
      });
    });
  });

  describe('health', () => {
    test('reports each job type separately, with the oldest due age and last error', async () => {
      const { queue, clock } = await backend.setup();
      await queue.enqueue({ jobType: 'docs' });
      clock.advance(5000);
      await queue.enqueue({ jobType: 'docs' });
      const bad = await queue.enqueue({ jobType: 'hints' });
      const job = await queue.lease(['hints'], 'w');
      await queue.fail(bad.id, job?.leaseToken ?? '', 'model timeout');
      const empty = { leased: 0, completed: 0, dead: 0, cancelled: 0 };
      expect(await queue.health()).toEqual([
        { jobType: 'docs', pending: 2, due: 2, ...empty, oldestPendingAgeMs: 5000, lastError: null, lastErrorAt: null },
        {
          jobType: 'hints',
          pending: 1,
          due: 0,
          ...empty,
          oldestPendingAgeMs: null,
          lastError: 'model timeout',
          lastErrorAt: clock.now(),
        },
      ]);
    });
  });

  describe('worker and reaper', () => {
    test('a worker polls, runs the handler and completes jobs with their results', async () => {
      const { queue, raw: q, scheduler, clock } = await backend.setup();
      const seen: unknown[] = [];
      const worker = createWorker({
        queue: q,
        jobTypes: ['echo'],
        scheduler,
        clock,
        concurrency: 2,
        handler: async (job) => {
          seen.push(job.payload);
          return { echoed: job.payload };
        },
      });
      const ids: string[] = [];
      for (const n of [1, 2, 3]) ids.push((await queue.enqueue({ jobType: 'echo', payload: { n } })).id);
      worker.start();
      await drainQueue(queue, { scheduler });
      expect(seen).toHaveLength(3);
      for (const [i, id] of ids.entries())
        expect(await queue.get(id)).toMatchObject({ status: 'completed', result: { echoed: { n: i + 1 } } });
      expect(worker.status()).toMatchObject({ completed: 3, failed: 0, inFlight: 0 });
      await worker.close();
    });

    test('heartbeats keep a long job leased past its lease period; a lost lease aborts the handler', async () => {
      const { queue, raw: q, scheduler, clock } = await backend.setup({ leaseMs: 10_000, heartbeatMs: 3000 });
      const signals: AbortSignal[] = [];
      const handler: JobHandler = (_job, { signal }) =>
        new Promise((_resolve, reject) => {
          signals.push(signal);
          signal.addEventListener('abort', () => reject(signal.reason));
        });
      const worker = createWorker({ queue: q, jobTypes: ['slow'], scheduler, clock, handler });
      const reaper = createReaper({ queue: q, scheduler });
      const { id } = await queue.enqueue({ jobType: 'slow' });
      worker.start();
      reaper.start();
      await waitForJob(queue, id, 'leased', { scheduler });
      await scheduler.advance(40_000); // four lease periods: only heartbeats keep it
      await settle();
      expect(await queue.get(id)).toMatchObject({ status: 'leased', interruptions: 0 });
      await queue.cancel({ ids: [id], apply: true });
      await scheduler.advance(3000);
      await settle();
      expect(signals[0]?.aborted).toBe(true);
      expect((await queue.get(id))?.status).toBe('cancelled');
      reaper.stop();
      await worker.close({ deadlineMs: 0 });
    });

    test('close never strands a job, even one whose lease is still in flight', async () => {
      const { queue, raw: q, scheduler, clock } = await backend.setup();
      const { id } = await queue.enqueue({ jobType: 'x' });
      const worker = createWorker({ queue: q, jobTypes: ['x'], scheduler, clock, handler: async () => 'ok' });
      const running = worker.runOnce();
      // On PostgreSQL the lease is still in flight here; SQLite leased and started the job already.
      await worker.close();
      const job = await queue.get(id); // as close leaves it, before anything else settles
      await running.catch(() => undefined);
      expect(['completed', 'pending']).toContain(job?.status);
      if (job?.status === 'pending') expect(job).toMatchObject({ attempts: 0, leaseToken: null });
    });

    test('the reaper requeues a job whose worker vanished; another worker completes it', async () => {
      const { queue, raw: q, scheduler, clock } = await backend.setup({ leaseMs: 5000 });
      const reaper = createReaper({ queue: q, scheduler });
      const { id } = await queue.enqueue({ jobType: 'x' });
      await queue.lease(['x'], 'gone'); // its holder never comes back
      clock.advance(5001);
      expect(await reaper.runOnce()).toEqual({ requeued: 1, dead: 0 });
      const worker = createWorker({ queue: q, jobTypes: ['x'], scheduler, clock, handler: async () => 'ok' });
      expect(await worker.runOnce()).toBe(1);
      expect(await queue.get(id)).toMatchObject({ status: 'completed', result: 'ok', interruptions: 1 });
      await worker.close();
    });
  });
});
