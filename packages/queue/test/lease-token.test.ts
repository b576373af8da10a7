import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

// The lease token is what makes a holder's call safe: only the current token of a leased job may
// heartbeat, complete, fail or release it. A second test of the token check, independent of the
// reaper: here the old holder loses its lease to a release and a re-lease, and to a job that is
// leased by someone else while the caller holds a token of another job.

const lost = (fn: () => unknown) => expect(fn).toThrow(expect.objectContaining({ code: 'LEASE_LOST' }));

describe('lease tokens', () => {
  it('after release and re-lease, the first holder’s token is refused everywhere and the new holder’s work stands', async () => {
    const { queue, row } = await setup();
    const { id } = queue.enqueue({ jobType: 'a' });
    const first = queue.lease(['a'], 'w1');
    queue.release(id, first?.leaseToken ?? '');
    const second = queue.lease(['a'], 'w2');
    expect(second?.id).toBe(id);
    expect(second?.leaseToken).not.toBe(first?.leaseToken);
    const before = row(id);
    lost(() => queue.heartbeat(id, first?.leaseToken ?? ''));
    lost(() => queue.fail(id, first?.leaseToken ?? '', 'late failure', { permanent: true }));
    lost(() => queue.complete(id, first?.leaseToken ?? '', 'late result'));
    lost(() => queue.release(id, first?.leaseToken ?? ''));
    expect(row(id)).toEqual(before);
    expect(queue.fail(id, second?.leaseToken ?? '', 'real failure')).toBe('pending');
    expect(queue.get(id)).toMatchObject({ status: 'pending', error: 'real failure', attempts: 1 });
  });

  it('a token of one job never works on another leased job', async () => {
    const { queue, row } = await setup();
    const a = queue.enqueue({ jobType: 'a' });
    const b = queue.enqueue({ jobType: 'a' });
    const leasedA = queue.lease(['a'], 'w1');
    const leasedB = queue.lease(['a'], 'w2');
    expect([leasedA?.id, leasedB?.id]).toEqual([a.id, b.id]);
    const before = row(b.id);
    lost(() => queue.complete(b.id, leasedA?.leaseToken ?? ''));
    lost(() => queue.fail(b.id, leasedA?.leaseToken ?? '', 'x'));
    lost(() => queue.heartbeat(b.id, leasedA?.leaseToken ?? ''));
    expect(row(b.id)).toEqual(before);
  });

  it('only the current token of a leased job is accepted: any other string changes nothing (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 12 }),
        fc.constantFrom('complete', 'fail', 'heartbeat', 'release'),
        async (token, operation) => {
          const { queue, row, store } = await setup();
          const { id } = queue.enqueue({ jobType: 'a' });
          const job = queue.lease(['a'], 'w');
          fc.pre(token !== job?.leaseToken);
          const before = row(id);
          lost(() => {
            if (operation === 'complete') queue.complete(id, token, 'r');
            else if (operation === 'fail') queue.fail(id, token, 'e', { permanent: true });
            else if (operation === 'heartbeat') queue.heartbeat(id, token);
            else queue.release(id, token);
          });
          expect(row(id)).toEqual(before);
          store.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});
