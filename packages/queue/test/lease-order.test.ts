import { isMemoryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { setup, T0 } from './helpers.js';

// Which job a lease takes when several types are asked for: the oldest run_at across all of them,
// ties going to the earlier insert, whatever order the types are listed in. And what a lost lease
// reports to its caller.

describe('lease order across job types', () => {
  it('breaks a run_at tie by insert order, not by the order the types are listed', async () => {
    for (const types of [
      ['a', 'b'],
      ['b', 'a'],
    ]) {
      const { queue } = await setup();
      const first = queue.enqueue({ jobType: 'b', runAt: T0 });
      const second = queue.enqueue({ jobType: 'a', runAt: T0 });
      expect(queue.lease(types, 'w')?.id).toBe(first.id);
      expect(queue.lease(types, 'w')?.id).toBe(second.id);
    }
  });

  it('an older run_at in a later-listed type beats a newer one in an earlier-listed type', async () => {
    for (const insertOlderFirst of [true, false])
      for (const types of [
        ['a', 'b'],
        ['b', 'a'],
      ]) {
        const { queue } = await setup();
        const older = () => queue.enqueue({ jobType: 'b', runAt: T0 - 10 });
        const newer = () => queue.enqueue({ jobType: 'a', runAt: T0 - 5 });
        let olderJob: { id: string };
        if (insertOlderFirst) {
          olderJob = older();
          newer();
        } else {
          newer();
          olderJob = older();
        }
        expect(queue.lease(types, 'w')?.id).toBe(olderJob.id);
      }
  });
});

describe('what a lost lease reports', () => {
  it('names the job and the state it was found in', async () => {
    const { queue } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const job = queue.lease(['a'], 'w');
    queue.complete(id, job?.leaseToken ?? '');
    const errorOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const late = errorOf(() => queue.complete(id, job?.leaseToken ?? ''));
    expect(isMemoryError(late, 'LEASE_LOST')).toBe(true);
    expect(late).toMatchObject({
      message: `the lease on job ${id} is no longer held by this worker`,
      details: { jobId: id, status: 'completed' },
    });
    expect(errorOf(() => queue.heartbeat('j-999999', 'x'))).toMatchObject({
      code: 'LEASE_LOST',
      details: { jobId: 'j-999999', status: 'missing' },
    });
  });
});
