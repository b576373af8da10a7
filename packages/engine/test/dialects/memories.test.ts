import { createManualClock, createManualScheduler, createSequentialIds } from '@memory/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../../store/src/migrations/index.js';
import { createBagOfWordsEmbedder } from '../helpers.js';
import { type EngineOptions, engineBackends } from '../support/backends.js';

// The engine's memory API on every backend: remember, rememberMany, getMemory, list, modify,
// forget, recover, history, dedup and conflict detection, and two engines on one database.

const T0 = Date.UTC(2026, 0, 1);
const backends = await engineBackends();

// Dedup and conflict merges count themselves in `lifecycle_counts` (migration 11), whose PostgreSQL
// form another branch adds (s7-lifecycle). Until it is merged those tests run on SQLite only;
// afterwards on every backend, with no change here.
const lifecycleOnPostgres = MIGRATIONS.find((m) => m.version === 11)?.postgres !== undefined;
const countsMissing = (dialect: string) =>
  dialect === 'postgres' && !lifecycleOnPostgres
    ? 'lifecycle_counts has no PostgreSQL form until the lifecycle branch is merged'
    : undefined;

const options = (): EngineOptions => {
  const clock = createManualClock(T0);
  return {
    clock,
    scheduler: createManualScheduler(clock),
    ids: createSequentialIds('id'),
    embedder: createBagOfWordsEmbedder(256),
    config: { remember: { conflict: { threshold: 0.5 } } },
  };
};

describe.each(backends)('memories on $name', (backend) => {
  afterEach(() => backend.cleanup());
  afterAll(() => backend.dispose());

  it.skipIf(backend.skip)('remembers, reads, lists, modifies, forgets and recovers, with history', async () => {
    const engine = await backend.open(options());
    const one = await engine.remember({ agentId: 'a', content: 'The kettle is blue.', tags: ['home'] });
    const many = await engine.rememberMany({
      agentId: 'a',
      memories: [{ content: 'Lunch is at noon.' }, { content: 'The cat is called Miso.', pinned: true }],
    });
    expect(many.map((r) => r.deduped)).toEqual([false, false]);
    expect(await engine.getMemory({ agentId: 'a', id: one.id })).toMatchObject({
      content: 'The kettle is blue.',
      tags: ['home'],
    });
    // Another agent's memory is indistinguishable from a missing one.
    expect(await engine.getMemory({ agentId: 'b', id: one.id })).toBeUndefined();
    await expect(engine.history({ agentId: 'b', id: one.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const first = await engine.list({ agentId: 'a', limit: 2 });
    expect(first.memories).toHaveLength(2);
    expect(first.nextCursor).not.toBeNull();
    const rest = await engine.list({ agentId: 'a', limit: 2, cursor: first.nextCursor ?? undefined });
    expect(rest.memories).toHaveLength(1);
    expect(rest.nextCursor).toBeNull();
    expect(new Set([...first.memories, ...rest.memories].map((m) => m.id)).size).toBe(3);
    expect((await engine.list({ agentId: 'b' })).memories).toEqual([]);

    const changed = await engine.modify({
      agentId: 'a',
      id: one.id,
      content: 'The kettle is red.',
      reason: 'repainted',
    });
    expect(changed).toMatchObject({ content: 'The kettle is red.', updateCount: 1 });
    await expect(
      engine.modify({ agentId: 'a', id: many[0]?.id ?? '', content: 'The kettle is red.', reason: 'x' }),
    ).rejects.toMatchObject({ code: 'CONFLICT' });
    const cat = many[1]?.id ?? '';
    await expect(engine.forget({ agentId: 'a', id: cat, reason: 'gone' })).rejects.toMatchObject({ code: 'PINNED' });
    expect(await engine.forget({ agentId: 'a', id: cat, reason: 'gone', force: true })).toEqual({
      id: cat,
      forgotten: true,
    });
    expect((await engine.list({ agentId: 'a' })).memories.map((m) => m.id)).not.toContain(cat);
    expect((await engine.list({ agentId: 'a', includeForgotten: true })).memories.map((m) => m.id)).toContain(cat);
    expect(await engine.recover({ agentId: 'a', id: cat })).toMatchObject({ id: cat, deleted: false });
    const history = await engine.history({ agentId: 'a', id: cat });
    expect(history.map((h) => h.event)).toEqual(['created', 'deleted', 'recovered']);
    expect((await engine.history({ agentId: 'a', id: one.id })).at(-1)).toMatchObject({
      event: 'updated',
      oldContent: 'The kettle is blue.',
      newContent: 'The kettle is red.',
      reason: 'repainted',
    });
  });

  it.skipIf(backend.skip ?? countsMissing(backend.dialect))(
    'dedups per scope and merges a memory that updates another',
    async () => {
      const engine = await backend.open(options());
      const first = await engine.remember({
        agentId: 'a',
        content: 'The weekly standup is at 9:30 on Monday',
        type: 'decision',
      });
      expect(
        await engine.remember({ agentId: 'a', content: 'the weekly standup is at 9:30 on monday', type: 'decision' }),
      ).toEqual({
        id: first.id,
        deduped: true,
      });
      const updated = await engine.remember({
        agentId: 'a',
        content: 'The weekly standup is at 10:00 on Tuesday',
        type: 'decision',
      });
      expect(updated).toMatchObject({
        id: first.id,
        updated: true,
        previous: 'The weekly standup is at 9:30 on Monday',
      });
      const other = await engine.remember({
        agentId: 'b',
        content: 'The weekly standup is at 10:00 on Tuesday',
        type: 'decision',
      });
      expect(other.id).not.toBe(first.id);
    },
  );

  // On PGlite (one session) the two engines' transactions take turns on PGlite's lock.
  it.skipIf(backend.skip ?? countsMissing(backend.dialect))(
    'two engines on one database remembering the same content store it once',
    async () => {
      // Random ids: sequential ones would be the same in both engines.
      const { ids: _sequential, ...shared } = options();
      const [one, two] = await backend.openShared(2, shared);
      if (!one || !two) throw new Error('openShared gave fewer engines');
      const results = await Promise.all(
        [one, two, one, two].map((engine) => engine.remember({ agentId: 'a', content: 'Shared fact.' })),
      );
      expect(new Set(results.map((r) => r.id)).size).toBe(1);
      expect(results.filter((r) => !r.deduped)).toHaveLength(1);
      expect((await two.list({ agentId: 'a' })).memories).toHaveLength(1);
    },
  );
});
