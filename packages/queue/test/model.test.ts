import { isMemoryError } from '@memory/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

type Action =
  | { kind: 'enqueue'; type: 'a' | 'b'; dedup: number | null }
  | { kind: 'lease'; worker: number }
  | { kind: 'heartbeat'; worker: number }
  | { kind: 'complete'; worker: number }
  | { kind: 'fail'; worker: number; permanent: boolean }
  | { kind: 'cancel'; pick: number }
  | { kind: 'reap' }
  | { kind: 'advance'; ms: number };

const WORKERS = 4;
const action: fc.Arbitrary<Action> = fc.oneof(
  fc.record({
    kind: fc.constant('enqueue' as const),
    type: fc.constantFrom('a' as const, 'b' as const),
    dedup: fc.option(fc.nat(3), { nil: null }),
  }),
  fc.record({ kind: fc.constant('lease' as const), worker: fc.nat(WORKERS - 1) }),
  fc.record({ kind: fc.constant('heartbeat' as const), worker: fc.nat(WORKERS - 1) }),
  fc.record({ kind: fc.constant('complete' as const), worker: fc.nat(WORKERS - 1) }),
  fc.record({ kind: fc.constant('fail' as const), worker: fc.nat(WORKERS - 1), permanent: fc.boolean() }),
  fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat(50) }),
  fc.record({ kind: fc.constant('reap' as const) }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(1000, 30_000, 61_000, 400_000) }),
);

describe('queue model (property)', () => {
  it('keeps its invariants under random interleavings of several workers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 120, size: 'max' }), async (actions) => {
        const { queue, clock, store } = await setup({ leaseMs: 60_000, heartbeatMs: 20_000, retryBaseMs: 5000 });
        const enqueued = new Set<string>();
        const held: Array<{ id: string; token: string } | undefined> = Array.from({ length: WORKERS }, () => undefined);
        const attempts = new Map<string, number>();
        const permanentlyFailed = new Set<string>();
        const completions = new Map<string, number>();
        const maxAttempts = queue.config.maxAttempts;

        const onLost = (fn: () => void, worker: number) => {
          try {
            fn();
          } catch (error) {
            if (!isMemoryError(error, 'LEASE_LOST')) throw error;
          }
          held[worker] = undefined;
        };

        const check = () => {
          const rows = store.database
            .prepare('SELECT id, status, attempts, interruptions, max_interruptions, lease_token FROM memory_jobs')
            .all() as Array<{
            id: string;
            status: string;
            attempts: number;
            interruptions: number;
            max_interruptions: number | null;
            lease_token: string | null;
          }>;
          for (const r of rows) {
            // At most one live lease per job: no two workers hold the current token.
            const holders = held.filter(
              (h) => h && h.id === r.id && r.status === 'leased' && h.token === r.lease_token,
            ).length;
            expect(holders).toBeLessThanOrEqual(1);
            if (r.status !== 'leased') expect(r.lease_token).toBeNull();
            // Runs never go uncounted: an expired lease moves its attempt to interruptions, so
            // attempts + interruptions never decrease.
            const runs = r.attempts + r.interruptions;
            expect(runs).toBeGreaterThanOrEqual(attempts.get(r.id) ?? 0);
            attempts.set(r.id, runs);
            // Dead only when out of attempts, out of interruptions, or permanently failed.
            if (r.status === 'dead')
              expect(
                r.attempts >= maxAttempts ||
                  (r.max_interruptions !== null && r.interruptions >= r.max_interruptions) ||
                  permanentlyFailed.has(r.id),
              ).toBe(true);
            expect(completions.get(r.id) ?? 0).toBeLessThanOrEqual(1);
          }
        };

        for (const a of actions) {
          switch (a.kind) {
            case 'enqueue':
              enqueued.add(
                queue.enqueue({ jobType: a.type, ...(a.dedup === null ? {} : { dedupKey: `k${a.dedup}` }) }).id,
              );
              break;
            case 'lease': {
              if (held[a.worker]) break;
              const job = queue.lease(['a', 'b'], `w${a.worker}`);
              if (job) held[a.worker] = { id: job.id, token: job.leaseToken ?? '' };
              break;
            }
            case 'heartbeat': {
              const h = held[a.worker];
              if (h) {
                try {
                  queue.heartbeat(h.id, h.token);
                } catch (error) {
                  if (!isMemoryError(error, 'LEASE_LOST')) throw error;
                  held[a.worker] = undefined;
                }
              }
              break;
            }
            case 'complete': {
              const h = held[a.worker];
              if (h)
                onLost(() => {
                  queue.complete(h.id, h.token);
                  completions.set(h.id, (completions.get(h.id) ?? 0) + 1);
                }, a.worker);
              break;
            }
            case 'fail': {
              const h = held[a.worker];
              if (h)
                onLost(() => {
                  queue.fail(h.id, h.token, 'model failure', { permanent: a.permanent });
                  if (a.permanent) permanentlyFailed.add(h.id);
                }, a.worker);
              break;
            }
            case 'cancel': {
              const ids = [...enqueued];
              const id = ids[a.pick % Math.max(1, ids.length)];
              if (id) queue.cancel({ ids: [id], apply: true });
              break;
            }
            case 'reap':
              queue.reapExpiredLeases();
              break;
            case 'advance':
              clock.advance(a.ms);
              break;
          }
          check();
        }

        // Drain: a healthy worker finishes everything; every enqueued job ends terminal, none lost.
        held.fill(undefined);
        for (let round = 0; round < 200; round++) {
          clock.advance(400_000);
          queue.reapExpiredLeases();
          let job = queue.lease(['a', 'b'], 'drainer');
          while (job) {
            queue.complete(job.id, job.leaseToken ?? '');
            completions.set(job.id, (completions.get(job.id) ?? 0) + 1);
            job = queue.lease(['a', 'b'], 'drainer');
          }
          if (queue.health().every((h) => h.pending === 0 && h.leased === 0)) break;
        }
        check();
        const final = store.database.prepare('SELECT id, status FROM memory_jobs').all() as Array<{
          id: string;
          status: string;
        }>;
        expect(new Set(final.map((r) => r.id))).toEqual(enqueued);
        for (const r of final) expect(['completed', 'dead', 'cancelled']).toContain(r.status);
        store.close();
      }),
      { numRuns: 150 },
    );
  });
});
