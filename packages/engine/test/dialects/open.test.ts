import { createManualClock, createManualScheduler, isMemoryError } from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createMemoryEngine } from '../../src/index.js';
import { unsupportedOnPostgres } from '../../src/unsupported.js';
import { engineBackends } from '../support/backends.js';

// The engine opens on every backend: the database choice, the queue (host jobs, repairs, workers),
// the vector support it reports, refusal of what has no PostgreSQL form yet, and close.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();

describe.each(backends)('the engine on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  it.skipIf(backend.skip)('runs host jobs through its queue, with workers and repairs', async () => {
    const clock = createManualClock(T0);
    const scheduler = createManualScheduler(clock);
    const engine = await backend.open({ clock, scheduler });
    expect(engine.vector.available).toBe(backend.vectorIndex);
    const seen: unknown[] = [];
    engine.jobs.registerHandler({
      jobTypes: ['host_echo'],
      handler: async (job) => {
        seen.push(job.payload);
        return { echoed: job.payload };
      },
    });
    const first = await engine.jobs.enqueue({ jobType: 'host_echo', payload: { n: 1 }, agentId: 'a', dedupKey: 'k' });
    const again = await engine.jobs.enqueue({ jobType: 'host_echo', payload: { n: 2 }, agentId: 'a', dedupKey: 'k' });
    expect(again).toEqual({ id: first.id, deduped: true });
    // Another scope's job with the same key is another job, and invisible from scope `a`.
    const other = await engine.jobs.enqueue({ jobType: 'host_echo', payload: { n: 3 }, agentId: 'b', dedupKey: 'k' });
    expect(other.deduped).toBe(false);
    expect(await engine.jobs.get({ id: other.id, agentId: 'a' })).toBeUndefined();

    const { ran } = await engine.runDue();
    expect(ran).toBe(2);
    expect(seen).toEqual([{ n: 1 }, { n: 3 }]);
    const done = await engine.jobs.get({ id: first.id, agentId: 'a' });
    expect(done).toMatchObject({ status: 'completed', result: { echoed: { n: 1 } }, dedupKey: 'k' });
    const diagnosticsQueue = await engine.repair.requeueDead({});
    expect(diagnosticsQueue).toMatchObject({ applied: false, matched: 0 });
  });

  it.skipIf(backend.skip)('dead-letters a failing job and requeues it on repair', async () => {
    const clock = createManualClock(T0);
    const engine = await backend.open({ clock, scheduler: createManualScheduler(clock) });
    let fail = true;
    engine.jobs.registerHandler({
      jobTypes: ['host_flaky'],
      handler: async () => {
        if (fail) throw new Error('not yet');
        return 'ok';
      },
    });
    const { id } = await engine.jobs.enqueue({ jobType: 'host_flaky', maxAttempts: 1 });
    await engine.runDue();
    expect(await engine.jobs.get({ id })).toMatchObject({ status: 'dead', error: expect.stringContaining('not yet') });
    expect(await engine.repair.requeueDead({ apply: true })).toMatchObject({ applied: true, matched: 1 });
    fail = false;
    await engine.runDue();
    expect(await engine.jobs.get({ id })).toMatchObject({ status: 'completed', result: 'ok' });
  });

  it.skipIf(backend.skip)('is closed after close(), and close is idempotent', async () => {
    const engine = await backend.open();
    await engine.close();
    await engine.close();
    await expect(engine.jobs.enqueue({ jobType: 'host_x' })).rejects.toMatchObject({ code: 'ENGINE_CLOSED' });
  });
});

describe('choosing the database', () => {
  it.each([
    [{ postgres: {} }, /exactly one of \{ connectionString \}/],
    [{ postgres: { connectionString: '' } }, /connectionString must be a non-empty string/],
    [{ postgres: { pool: 'x' } }, /pool must be an object/],
    [{ path: ':memory:', postgres: { connectionString: 'postgres://x' } }, /exactly one of \{ path \}/],
  ])('refuses %j with INVALID_CONFIG', async (database, message) => {
    const error = await createMemoryEngine({ database } as never).catch((e: unknown) => e);
    expect(isMemoryError(error, 'INVALID_CONFIG')).toBe(true);
    expect((error as Error).message).toMatch(message);
  });

  it('reports an unreachable server as STORAGE_ERROR or MIGRATION_FAILED, not a raw driver error', async () => {
    const error = await createMemoryEngine({
      database: { postgres: { connectionString: 'postgres://nobody@127.0.0.1:1/none' } },
    }).catch((e: unknown) => e);
    expect(isMemoryError(error)).toBe(true);
    expect(['STORAGE_ERROR', 'MIGRATION_FAILED']).toContain((error as { code: string }).code);
  });
});

describe('a part with no PostgreSQL form yet', () => {
  it('throws UNSUPPORTED naming the call, reads kept values through, and is not a thenable', async () => {
    const part = unsupportedOnPostgres<{ label: string; list(): string[] }>('notes', { label: 'kept' });
    expect(part.label).toBe('kept');
    let caught: unknown;
    try {
      part.list();
    } catch (error) {
      caught = error;
    }
    expect(isMemoryError(caught, 'UNSUPPORTED')).toBe(true);
    expect((caught as Error).message).toBe('notes.list is not available on PostgreSQL yet; use SQLite');
    // Awaiting it must not call a `then` stand-in (which would throw instead of resolving).
    expect(await Promise.resolve(part)).toBe(part);
  });
});
