import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

// The operator's repairs, at their edges: what a repair may touch, what a requeued job starts from,
// which owners are told a job died, and how a limit behaves. Each test kills a planted bug that the
// transitions and contract tests let through (docs/mutation-testing.md, "The queue's repairs").

describe('repairs at their edges', () => {
  it('requeueDead gives a job that died of interruptions a fresh start: interruptions and failure time reset', async () => {
    const { queue, clock } = await setup();
    const { id } = queue.enqueue({ jobType: 'a', maxAttempts: 2 });
    // Two expired leases in a row: dead of interruptions (the limit is maxAttempts).
    for (let i = 0; i < 2; i++) {
      expect(queue.lease(['a'], 'w')?.id).toBe(id);
      clock.advance(60_001);
      queue.reapExpiredLeases();
    }
    // It died at the reap: its failure time is when (retention of dead jobs counts from it).
    expect(queue.get(id)).toMatchObject({ status: 'dead', interruptions: 2, failedAt: clock.now() });
    queue.requeueDead({ apply: true });
    expect(queue.get(id)).toMatchObject({ status: 'pending', attempts: 0, interruptions: 0, failedAt: null });
    // One more interruption after the repair is the first of a new count, not the last of the old.
    expect(queue.lease(['a'], 'w')?.id).toBe(id);
    clock.advance(60_001);
    expect(queue.reapExpiredLeases()).toEqual({ requeued: 1, dead: 0 });
    expect(queue.get(id)).toMatchObject({ status: 'pending', interruptions: 1 });
  });

  it('releaseStale: a lease held exactly olderThanMs is stale; by default the cutoff is one lease period', async () => {
    const { queue, clock } = await setup({ leaseMs: 60_000 });
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    clock.advance(30_000);
    queue.heartbeat(id, job?.leaseToken ?? '');
    // Held 30 s of a 60 s lease period: not stale by default, stale for a 30 s cutoff (at the boundary).
    expect(queue.releaseStale()).toMatchObject({ matched: 0 });
    expect(queue.releaseStale({ olderThanMs: 30_001 })).toMatchObject({ matched: 0 });
    expect(queue.releaseStale({ olderThanMs: 30_000 })).toMatchObject({ matched: 1, jobs: [{ id }] });
    clock.advance(30_000);
    queue.heartbeat(id, job?.leaseToken ?? '');
    expect(queue.releaseStale()).toMatchObject({ matched: 1, jobs: [{ id }] });
  });

  it("releaseStale tells a dead job's owner only when the job died, not when it went back to pending", async () => {
    const { queue, clock } = await setup();
    const told: string[] = [];
    queue.onDead('a', (_sql, job) => {
      told.push(job.id);
    });
    const retried = queue.enqueue({ jobType: 'a', maxAttempts: 2 });
    const last = queue.enqueue({ jobType: 'a', maxAttempts: 1 });
    queue.lease(['a'], 'stuck');
    queue.lease(['a'], 'stuck');
    clock.advance(5_000);
    queue.releaseStale({ olderThanMs: 0, apply: true });
    // Only the job that died has a failure time.
    expect(queue.get(retried.id)).toMatchObject({ status: 'pending', failedAt: null });
    expect(queue.get(last.id)).toMatchObject({ status: 'dead', failedAt: clock.now() });
    expect(told).toEqual([last.id]);
  });

  it('cancel never touches finished jobs: a completed job keeps its status and result', async () => {
    const { queue } = await setup();
    const done = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    queue.complete(done.id, job?.leaseToken ?? '', { ok: 1 });
    const waiting = queue.enqueue({ jobType: 'a' });
    expect(queue.cancel({ apply: true })).toMatchObject({ matched: 1, jobs: [{ id: waiting.id }] });
    expect(queue.get(done.id)).toMatchObject({ status: 'completed', result: { ok: 1 } });
  });

  it('a limit below one still repairs one job per call: a repair loop always progresses and never takes all at once', async () => {
    const { queue } = await setup();
    for (let i = 0; i < 3; i++) queue.enqueue({ jobType: 'a' });
    expect(queue.cancel({ limit: 0, apply: true })).toMatchObject({ matched: 1, remaining: 2 });
    expect(queue.cancel({ limit: -1, apply: true })).toMatchObject({ matched: 1, remaining: 1 });
    expect(queue.health()[0]).toMatchObject({ pending: 1, cancelled: 2 });
  });

  it('a job that failed once and then completed carries no error', async () => {
    const { queue, clock } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    let job = queue.lease(['a'], 'w');
    expect(queue.fail(id, job?.leaseToken ?? '', 'flaky upstream')).toBe('pending');
    expect(queue.get(id)?.error).toBe('flaky upstream');
    clock.advance(3_600_000);
    job = queue.lease(['a'], 'w');
    expect(job?.id).toBe(id);
    queue.complete(id, job?.leaseToken ?? '', 'fine');
    expect(queue.get(id)).toMatchObject({ status: 'completed', error: null, result: 'fine' });
  });
});
