import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

describe('agent scope isolation', () => {
  it('never lets one agent see, change or dedup against another agent’s memory', async () => {
    const { engine } = await createTestEngine();
    const mine = await engine.remember({ agentId: 'alice-bot', content: 'Alice’s door code is 4512', pinned: false });
    const theirs = await engine.remember({ agentId: 'bob-bot', content: 'Bob’s door code is 9931' });

    expect(await engine.getMemory({ agentId: 'bob-bot', id: mine.id })).toBeUndefined();
    expect(await engine.getMemory({ agentId: 'bob-bot', id: mine.id, includeDeleted: true })).toBeUndefined();
    await expect(engine.history({ agentId: 'bob-bot', id: mine.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      engine.modify({ agentId: 'bob-bot', id: mine.id, reason: 'x', content: 'hacked' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(engine.forget({ agentId: 'bob-bot', id: mine.id, reason: 'x', force: true })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await engine.forget({ agentId: 'alice-bot', id: mine.id, reason: 'rotate' });
    await expect(engine.recover({ agentId: 'bob-bot', id: mine.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await engine.recover({ agentId: 'alice-bot', id: mine.id });

    const bobRecall = await engine.recall({ agentId: 'bob-bot', query: 'door code' });
    expect(bobRecall.results.map((r) => r.id)).toEqual([theirs.id]);
    const aliceRecall = await engine.recall({ agentId: 'alice-bot', query: 'door code 9931' });
    expect(aliceRecall.results.map((r) => r.id)).toEqual([mine.id]);

    const copy = await engine.remember({ agentId: 'bob-bot', content: 'Alice’s door code is 4512' });
    expect(copy.deduped).toBe(false);
    expect((await engine.getMemory({ agentId: 'alice-bot', id: mine.id }))?.content).toBe('Alice’s door code is 4512');
  });

  it('treats agent ids as exact strings (no case folding, no prefix matching)', async () => {
    const { engine } = await createTestEngine();
    await engine.remember({ agentId: 'Team', content: 'quarterly planning notes' });
    expect((await engine.recall({ agentId: 'team', query: 'quarterly planning' })).results).toEqual([]);
    expect((await engine.recall({ agentId: 'Tea', query: 'quarterly planning' })).results).toEqual([]);
    expect((await engine.recall({ agentId: 'Team', query: 'quarterly planning' })).results).toHaveLength(1);
  });
});
