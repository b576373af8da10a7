import { describe, expect, it } from 'vitest';
import { setup, T0 } from './helpers.js';

const lost = (fn: () => unknown) => expect(fn).toThrow(expect.objectContaining({ code: 'LEASE_LOST' }));

describe('enqueue', () => {
  it('adds a pending job with defaults', async () => {
    const { queue } = await setup();
    const { id, deduped } = queue.enqueue({
      jobType: 'document_ingest',
      payload: { documentId: 'd1' },
      agentId: 'bot',
    });
    expect(deduped).toBe(false);
    expect(queue.get(id)).toMatchObject({
      status: 'pending',
      attempts: 0,
      maxAttempts: 3,
      runAt: T0,
      payload: { documentId: 'd1' },
      agentId: 'bot',
    });
  });

  it('dedups a pending or leased job with the same type and key, and not a finished one', async () => {
    const { queue } = await setup();
    const first = queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' });
    expect(queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' })).toEqual({ id: first.id, deduped: true });
    expect(queue.enqueue({ jobType: 'other', dedupKey: 'memory:1' }).deduped).toBe(false);
    const leased = queue.lease(['hints'], 'w');
    expect(queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' })).toEqual({ id: first.id, deduped: true });
    queue.complete(first.id, leased?.leaseToken ?? '');
    expect(queue.enqueue({ jobType: 'hints', dedupKey: 'memory:1' }).deduped).toBe(false);
  });

  it('rejects bad input', async () => {
    const { queue } = await setup({ maxPayloadBytes: 100 });
    for (const bad of [
      {},
      { jobType: '' },
      { jobType: 'x', payload: 'y'.repeat(200) },
      { jobType: 'x', maxAttempts: 0 },
      { jobType: 'x', extra: 1 },
    ]) {
      expect(() => queue.enqueue(bad as never)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    }
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => queue.enqueue({ jobType: 'x', payload: cyclic })).toThrow(
      expect.objectContaining({ code: 'INVALID_INPUT' }),
    );
  });
});

describe('lease', () => {
  it('takes the oldest eligible job across types, sets the lease and counts the attempt', async () => {
    const { queue, clock, row } = await setup();
    const a = queue.enqueue({ jobType: 'a' });
    clock.advance(10);
    const b = queue.enqueue({ jobType: 'b' });
    queue.enqueue({ jobType: 'a', runAt: T0 + 1_000_000 });
    const job = queue.lease(['b', 'a'], 'w1');
    expect(job?.id).toBe(a.id);
    expect(row(a.id)).toMatchObject({
      status: 'leased',
      attempts: 1,
      leased_by: 'w1',
      leased_at: clock.now(),
      lease_expires_at: clock.now() + 60_000,
    });
    expect(row(a.id).lease_token).toBeTruthy();
    expect(queue.lease(['a', 'b'], 'w2')?.id).toBe(b.id);
    expect(queue.lease(['a', 'b'], 'w3')).toBeUndefined();
    expect(queue.lease([], 'w3')).toBeUndefined();
  });

  it('never hands out a job before its run_at', async () => {
    const { queue, clock } = await setup();
    const later = queue.enqueue({ jobType: 'a', runAt: T0 + 500 });
    expect(queue.lease(['a'], 'w')).toBeUndefined();
    clock.advance(500);
    expect(queue.lease(['a'], 'w')?.id).toBe(later.id);
  });
});

describe('heartbeat / complete / fail / release with lease tokens', () => {
  it('heartbeat extends the lease; complete stores the result and clears the lease', async () => {
    const { queue, clock, row } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    const token = job?.leaseToken ?? '';
    clock.advance(30_000);
    expect(queue.heartbeat(id, token)).toBe(clock.now() + 60_000);
    queue.complete(id, token, { chunks: 3 });
    expect(queue.get(id)).toMatchObject({
      status: 'completed',
      result: { chunks: 3 },
      completedAt: clock.now(),
      leaseToken: null,
      leasedAt: null,
      leaseExpiresAt: null,
    });
    expect(row(id).leased_by).toBeNull();
  });

  it('a stale token (reaped lease) gets LEASE_LOST from complete, fail and heartbeat, and changes nothing', async () => {
    const { queue, clock } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const first = queue.lease(['a'], 'w1');
    clock.advance(60_001);
    expect(queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
    const second = queue.lease(['a'], 'w2');
    const before = queue.get(id);
    lost(() => queue.complete(id, first?.leaseToken ?? '', 'late'));
    lost(() => queue.fail(id, first?.leaseToken ?? '', 'late'));
    lost(() => queue.heartbeat(id, first?.leaseToken ?? ''));
    lost(() => queue.release(id, first?.leaseToken ?? ''));
    expect(queue.get(id)).toEqual(before);
    queue.complete(id, second?.leaseToken ?? '');
    expect(queue.get(id)?.status).toBe('completed');
    lost(() => queue.complete(id, second?.leaseToken ?? ''));
    lost(() => queue.complete('j-999999', 'x'));
  });

  it('fail retries with backoff while attempts remain, then dead-letters', async () => {
    const { queue, clock, row } = await setup({ retryBaseMs: 1000, retryMaxMs: 3000 });
    const { id } = queue.enqueue({ jobType: 'a' });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 3; attempt++) {
      const job = queue.lease(['a'], 'w');
      expect(job?.attempts).toBe(attempt);
      const status = queue.fail(id, job?.leaseToken ?? '', `boom ${attempt}`);
      const r = row(id);
      expect(r.lease_token).toBeNull();
      expect(r.leased_at).toBeNull();
      if (attempt < 3) {
        expect(status).toBe('pending');
        delays.push(r.run_at - clock.now());
        expect(queue.lease(['a'], 'w')).toBeUndefined();
        clock.set(r.run_at);
      } else {
        expect(status).toBe('dead');
      }
    }
    expect(delays).toEqual([1000, 2000]);
    expect(queue.get(id)).toMatchObject({ status: 'dead', error: 'boom 3', failedAt: clock.now() });
  });

  it('permanent failures and explicit retry delays', async () => {
    const { queue, clock } = await setup();
    const a = queue.enqueue({ jobType: 'a' });
    const leasedA = queue.lease(['a'], 'w');
    expect(queue.fail(a.id, leasedA?.leaseToken ?? '', 'bad payload', { permanent: true })).toBe('dead');
    const b = queue.enqueue({ jobType: 'a' });
    const leasedB = queue.lease(['a'], 'w');
    queue.fail(b.id, leasedB?.leaseToken ?? '', 'rate limited', { retryDelayMs: 42_000 });
    expect(queue.get(b.id)?.runAt).toBe(clock.now() + 42_000);
  });

  it('release hands the job back untried (attempt refunded) or tried', async () => {
    const { queue } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    let job = queue.lease(['a'], 'w');
    queue.release(id, job?.leaseToken ?? '');
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, leaseToken: null });
    job = queue.lease(['a'], 'w');
    queue.release(id, job?.leaseToken ?? '', { attemptConsumed: true });
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 1 });
  });
});

describe('reaping and recovery', () => {
  it('reaps expired leases to pending with every lease field cleared, or to dead past the interruption limit', async () => {
    const { queue, clock, row } = await setup({ maxAttempts: 2 });
    const a = queue.enqueue({ jobType: 'a' });
    const b = queue.enqueue({ jobType: 'a', maxAttempts: 1 });
    const c = queue.enqueue({ jobType: 'a' });
    queue.lease(['a'], 'w');
    queue.lease(['a'], 'w');
    clock.advance(30_000);
    queue.lease(['a'], 'w'); // c: leased later, not expired at the reap below
    clock.advance(30_000);
    expect(queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 1 });
    for (const id of [a.id, b.id]) {
      const r = row(id);
      expect([r.lease_token, r.lease_expires_at, r.leased_at, r.leased_by]).toEqual([null, null, null, null]);
    }
    // An expired lease gives its attempt back and counts an interruption instead.
    expect(row(a.id)).toMatchObject({ status: 'pending', attempts: 0, error: 'lease expired' });
    expect(queue.get(a.id)).toMatchObject({ interruptions: 1, maxInterruptions: 2 });
    expect(row(b.id)).toMatchObject({ status: 'dead', attempts: 0 });
    expect(queue.get(b.id)).toMatchObject({ interruptions: 1, maxInterruptions: 1 });
    expect(row(c.id).status).toBe('leased');
    expect(queue.lease(['a'], 'w2')?.id).toBe(a.id);
  });

  it('a poison job that crashes its worker every time dies after max interruptions and never blocks the others', async () => {
    const { queue, clock } = await setup();
    const poison = queue.enqueue({ jobType: 'a' });
    const others = Array.from({ length: 5 }, () => queue.enqueue({ jobType: 'a' }).id);
    const order: string[] = [];
    for (let round = 0; round < 50; round++) {
      const job = queue.lease(['a'], 'worker');
      if (!job) {
        clock.advance(60_001); // nothing leasable: time passes, the reaper runs
        if (queue.reapExpiredLeases().requeued + queue.health()[0]!.pending === 0) break;
        continue;
      }
      order.push(job.id);
      if (job.id === poison.id) continue; // the worker dies holding the lease
      queue.complete(job.id, job.leaseToken ?? '');
    }
    expect(queue.get(poison.id)).toMatchObject({
      status: 'dead',
      attempts: 0,
      interruptions: 3,
      error: 'interrupted 3 times: its lease expired each time (the process running it died or hung)',
    });
    for (const id of others) expect(queue.get(id)?.status).toBe('completed');
    // The poison job was tried first, but after its first crash the healthy jobs went ahead of it.
    expect(order.slice(0, 6)).toEqual([poison.id, ...others]);
  });

  it('startup recovery dead-letters pending jobs that are already out of attempts', async () => {
    const { queue, store } = await setup();
    const stuck = queue.enqueue({ jobType: 'a' });
    const fine = queue.enqueue({ jobType: 'a' });
    store.database.prepare('UPDATE memory_jobs SET attempts = max_attempts WHERE id = ?').run(stuck.id);
    expect(queue.lease(['a'], 'w')?.id).toBe(fine.id); // the stuck one is skipped, not leased
    expect(queue.recoverOnStartup()).toBe(1);
    expect(queue.get(stuck.id)).toMatchObject({
      status: 'dead',
      error: 'found pending with no attempts left at startup',
    });
    expect(queue.recoverOnStartup()).toBe(0);
  });
});

describe('repairs (dry-run unless applied)', () => {
  it('requeueDead reports, then resets attempts when applied', async () => {
    const { queue } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    queue.fail(id, job?.leaseToken ?? '', 'x', { permanent: true });
    const dry = queue.requeueDead();
    expect(dry).toMatchObject({
      operation: 'requeueDead',
      applied: false,
      matched: 1,
      remaining: 0,
      jobs: [{ id, jobType: 'a', status: 'dead' }],
    });
    expect(queue.get(id)?.status).toBe('dead');
    expect(queue.requeueDead({ apply: true }).applied).toBe(true);
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('cancel during a lease makes the holder’s completion LEASE_LOST', async () => {
    const { queue } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    expect(queue.cancel({ ids: [id] }).matched).toBe(1);
    expect(queue.get(id)?.status).toBe('leased');
    queue.cancel({ ids: [id], apply: true });
    expect(queue.get(id)).toMatchObject({ status: 'cancelled', leaseToken: null });
    lost(() => queue.complete(id, job?.leaseToken ?? ''));
    lost(() => queue.heartbeat(id, job?.leaseToken ?? ''));
    expect(queue.get(id)?.status).toBe('cancelled');
  });

  it('releaseStale frees leases held too long even while heartbeating', async () => {
    const { queue, clock } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'stuck');
    for (let i = 0; i < 5; i++) {
      clock.advance(50_000);
      queue.heartbeat(id, job?.leaseToken ?? '');
    }
    expect(queue.reapExpiredLeases()).toEqual({ requeued: 0, dead: 0 });
    expect(queue.releaseStale({ olderThanMs: 200_000 }).matched).toBe(1);
    queue.releaseStale({ olderThanMs: 200_000, apply: true });
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 1, leaseToken: null });
  });

  it('limits work per call and reports what remains; filters by type and id', async () => {
    const { queue } = await setup();
    for (let i = 0; i < 7; i++) queue.enqueue({ jobType: i % 2 ? 'a' : 'b' });
    const report = queue.cancel({ jobType: 'b', limit: 2, apply: true });
    expect(report).toMatchObject({ matched: 2, remaining: 2 });
    expect(queue.health().find((h) => h.jobType === 'b')).toMatchObject({ pending: 2, cancelled: 2 });
    expect(queue.health().find((h) => h.jobType === 'a')).toMatchObject({ pending: 3, cancelled: 0 });
  });

  it('prune archives terminal jobs past retention, then deletes them; dry-run only counts', async () => {
    const { queue, clock, store } = await setup({ pruneBatchSize: 2 });
    const ids = Array.from({ length: 5 }, () => queue.enqueue({ jobType: 'a' }).id);
    for (const id of ids.slice(0, 3)) {
      const job = queue.lease(['a'], 'w');
      queue.complete(id, job?.leaseToken ?? '');
    }
    const deadJob = queue.lease(['a'], 'w');
    queue.fail(ids[3] ?? '', deadJob?.leaseToken ?? '', 'x', { permanent: true });
    clock.advance(15 * 86_400_000);
    expect(await queue.prune()).toEqual({ applied: false, completed: 3, dead: 0 });
    clock.advance(16 * 86_400_000);
    expect(await queue.prune({ apply: true })).toEqual({ applied: true, completed: 3, dead: 1 });
    expect(store.database.prepare('SELECT count(*) AS n FROM memory_jobs').get()).toEqual({ n: 1 });
    const archived = store.database
      .prepare('SELECT id, status, row_json FROM memory_jobs_archive ORDER BY id')
      .all() as Array<{ id: string; status: string; row_json: string }>;
    expect(archived.map((a) => a.status).sort()).toEqual(['completed', 'completed', 'completed', 'dead']);
    expect(JSON.parse(archived[0]?.row_json ?? '{}')).toMatchObject({ job_type: 'a', attempts: 1 });
  });
});

describe('health', () => {
  it('reports each job type separately, with the oldest due age and last error', async () => {
    const { queue, clock } = await setup();
    queue.enqueue({ jobType: 'docs' });
    clock.advance(5000);
    queue.enqueue({ jobType: 'docs' });
    const bad = queue.enqueue({ jobType: 'hints' });
    const job = queue.lease(['hints'], 'w');
    queue.fail(bad.id, job?.leaseToken ?? '', 'model timeout');
    expect(queue.health()).toEqual([
      {
        jobType: 'docs',
        pending: 2,
        due: 2,
        leased: 0,
        completed: 0,
        dead: 0,
        cancelled: 0,
        oldestPendingAgeMs: 5000,
        lastError: null,
        lastErrorAt: null,
      },
      {
        jobType: 'hints',
        pending: 1,
        due: 0,
        leased: 0,
        completed: 0,
        dead: 0,
        cancelled: 0,
        oldestPendingAgeMs: null,
        lastError: 'model timeout',
        lastErrorAt: clock.now(),
      },
    ]);
  });
});

describe('lease query plan', () => {
  it('reads the pending index in order: no scan, no sort, whatever the backlog', async () => {
    const { OLDEST_ELIGIBLE } = await import('../src/operations/lease.js');
    const { store } = await setup();
    const details = (
      store.database.prepare(`EXPLAIN QUERY PLAN ${OLDEST_ELIGIBLE}`).all('a', 0) as Array<{ detail: string }>
    ).map((r) => r.detail);
    expect(details).toEqual([
      expect.stringMatching(/^SEARCH memory_jobs USING INDEX memory_jobs_pending \(job_type=\? AND run_at<\?\)/),
    ]);
  });
});
