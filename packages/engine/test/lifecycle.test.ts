import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

const DAY = 86_400_000;

describe('modify / forget / recover / history', () => {
  it('modifies content, importance, tags and pinned, recording old and new content', async () => {
    const { engine, clock } = await createTestEngine();
    const { id } = await engine.remember({ agentId: 'a', content: 'Standup is at 9:30', importance: 0.4 });
    clock.advance(1000);
    const updated = await engine.modify({
      agentId: 'a',
      id,
      reason: 'moved',
      content: 'Standup is at 10:00',
      importance: 0.9,
      tags: ['team'],
      pinned: true,
      actor: { id: 'ops-1', type: 'operator' },
      requestId: 'req-7',
    });
    expect(updated).toMatchObject({
      content: 'Standup is at 10:00',
      importance: 0.9,
      tags: ['team'],
      pinned: true,
      updateCount: 1,
      updatedAt: clock.now(),
    });
    const history = await engine.history({ agentId: 'a', id });
    expect(history.map((h) => h.event)).toEqual(['created', 'updated']);
    expect(history[1]).toMatchObject({
      oldContent: 'Standup is at 9:30',
      newContent: 'Standup is at 10:00',
      reason: 'moved',
      changedBy: 'ops-1',
      actorType: 'operator',
      requestId: 'req-7',
      metadata: { changed: ['content', 'importance', 'tags', 'pinned'], importance: [0.4, 0.9] },
    });
    const found = await engine.recall({ agentId: 'a', query: 'standup 10:00' });
    expect(found.results.map((r) => r.id)).toEqual([id]);
    expect((await engine.recall({ agentId: 'a', query: '9:30' })).results).toEqual([]);
  });

  it('refuses a modification that would duplicate another live memory', async () => {
    const { engine } = await createTestEngine();
    const a = await engine.remember({ agentId: 'a', content: 'Alpha' });
    const b = await engine.remember({ agentId: 'a', content: 'Beta' });
    await expect(engine.modify({ agentId: 'a', id: b.id, reason: 'x', content: 'alpha.' })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { existingId: a.id },
    });
    expect((await engine.getMemory({ agentId: 'a', id: b.id }))?.content).toBe('Beta');
  });

  it('forgets softly, hides from recall and get, and keeps history', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({ agentId: 'a', content: 'The wifi password is hunter2' });
    expect(await engine.forget({ agentId: 'a', id, reason: 'secret' })).toEqual({ id, forgotten: true });
    expect(await engine.forget({ agentId: 'a', id, reason: 'again' })).toEqual({ id, forgotten: false });
    expect(await engine.getMemory({ agentId: 'a', id })).toBeUndefined();
    expect(await engine.getMemory({ agentId: 'a', id, includeDeleted: true })).toMatchObject({ deleted: true });
    expect((await engine.recall({ agentId: 'a', query: 'wifi password' })).results).toEqual([]);
    expect((await engine.history({ agentId: 'a', id })).map((h) => h.event)).toEqual(['created', 'deleted']);
  });

  it('requires force to forget a pinned memory', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({
      agentId: 'a',
      content: 'Never deploy on Fridays',
      type: 'constraint',
      pinned: true,
    });
    await expect(engine.forget({ agentId: 'a', id, reason: 'cleanup' })).rejects.toMatchObject({ code: 'PINNED' });
    expect(await engine.getMemory({ agentId: 'a', id })).toBeDefined();
    expect(await engine.forget({ agentId: 'a', id, reason: 'policy changed', force: true })).toEqual({
      id,
      forgotten: true,
    });
  });

  it('recovers within the window, not after it, and not over a live duplicate', async () => {
    const { engine, clock } = await createTestEngine({ config: { retention: { recoverWindowDays: 7 } } });
    const { id } = await engine.remember({ agentId: 'a', content: 'Lunch order: ramen' });
    await engine.forget({ agentId: 'a', id, reason: 'oops' });
    clock.advance(3 * DAY);
    expect(await engine.recover({ agentId: 'a', id })).toMatchObject({ id, deleted: false });
    expect((await engine.recall({ agentId: 'a', query: 'ramen' })).results).toHaveLength(1);
    await expect(engine.recover({ agentId: 'a', id })).rejects.toMatchObject({ code: 'CONFLICT' });

    await engine.forget({ agentId: 'a', id, reason: 'again' });
    const dup = await engine.remember({ agentId: 'a', content: 'lunch order: ramen' });
    await expect(engine.recover({ agentId: 'a', id })).rejects.toMatchObject({
      code: 'CONFLICT',
      details: { existingId: dup.id },
    });

    await engine.forget({ agentId: 'a', id: dup.id, reason: 'x' });
    clock.advance(8 * DAY);
    await expect(engine.recover({ agentId: 'a', id })).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringMatching(/7 days/),
    });
    expect((await engine.history({ agentId: 'a', id })).map((h) => h.event)).toEqual([
      'created',
      'deleted',
      'recovered',
      'deleted',
    ]);
  });

  it('reports unknown ids as NOT_FOUND and malformed ids as INVALID_INPUT', async () => {
    const { engine } = await createTestEngine();
    await expect(engine.forget({ agentId: 'a', id: 'id-999999', reason: 'x' })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(engine.modify({ agentId: 'a', id: 'id-999999', reason: 'x', importance: 0.1 })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(engine.history({ agentId: 'a', id: 'id-999999' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    for (const bad of ['', 'has space', '../../etc/passwd', 'x'.repeat(200)]) {
      await expect(engine.getMemory({ agentId: 'a', id: bad })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      await expect(engine.forget({ agentId: 'a', id: bad, reason: 'x' })).rejects.toMatchObject({
        code: 'INVALID_INPUT',
      });
    }
  });
});
