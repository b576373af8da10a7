import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

async function engine(threshold = 0.5) {
  const { engine } = await createTestEngine({
    embedder: createBagOfWordsEmbedder(256),
    config: { remember: { conflict: { threshold } } },
  });
  return engine;
}

describe('conflict detection on write', () => {
  it('updates the memory a new one updates, with history of both contents, and counts it', async () => {
    const e = await engine();
    const first = await e.remember({
      agentId: 'a',
      content: 'The weekly standup is at 9:30 on Monday',
      type: 'decision',
    });
    const second = await e.remember({
      agentId: 'a',
      content: 'The weekly standup is at 10:00 on Tuesday',
      type: 'decision',
      actor: { id: 'ops', type: 'operator' },
    });
    expect(second).toEqual({
      id: first.id,
      deduped: false,
      updated: true,
      previous: 'The weekly standup is at 9:30 on Monday',
    });
    expect((await e.getMemory({ agentId: 'a', id: first.id }))?.content).toBe(
      'The weekly standup is at 10:00 on Tuesday',
    );
    const history = await e.history({ agentId: 'a', id: first.id });
    expect(history.at(-1)).toMatchObject({
      event: 'updated',
      oldContent: 'The weekly standup is at 9:30 on Monday',
      newContent: 'The weekly standup is at 10:00 on Tuesday',
      reason: expect.stringMatching(/conflict/),
      changedBy: 'ops',
      metadata: { conflict: { cosine: expect.any(Number) } },
    });
    expect((await e.list({ agentId: 'a' })).memories).toHaveLength(1);
    expect((await e.health({ agentId: 'a' })).last30Days.conflictsMerged).toBe(1);
    // The vector follows the new content: recall finds it by the new words.
    const recalled = await e.recall({ agentId: 'a', query: 'standup tuesday' });
    expect(recalled.results[0]?.id).toBe(first.id);
    await e.close();
  });

  it('never merges different subjects, directions, negations, identifiers or decisions', async () => {
    const e = await engine(0.3);
    const pairs: Array<[string, string]> = [
      ['Alice lives in Lisbon', 'Bob lives in Lisbon'],
      ['Dana moved to Porto last year', 'Dana moved from Porto last year'],
      ['Dana eats meat', 'Dana does not eat meat'],
      ['Room 101 is the quiet room', 'Room 102 is the quiet room'],
      ['We chose Postgres for the billing service', 'We chose Redis for the billing service'],
      ['Dana likes the green tea', 'Dana hates the green tea'],
    ];
    for (const [i, [a, b]] of pairs.entries()) {
      const agentId = `scope-${i}`;
      const one = await e.remember({ agentId, content: a, type: 'preference' });
      const two = await e.remember({ agentId, content: b, type: 'preference' });
      expect(two.id, `${a} / ${b}`).not.toBe(one.id);
      expect(two.updated).toBeUndefined();
    }
    await e.close();
  });

  it('checks only the configured kinds, the same kind, unpinned memories, host links, and honours the opt-out', async () => {
    const e = await engine();
    const fact = await e.remember({ agentId: 'a', content: 'Budget for Atlas is 40k', type: 'fact' });
    expect((await e.remember({ agentId: 'a', content: 'Budget for Atlas is 45k', type: 'fact' })).id).not.toBe(fact.id);
    const decision = await e.remember({ agentId: 'b', content: 'Budget for Atlas is 40k', type: 'decision' });
    expect((await e.remember({ agentId: 'b', content: 'Budget for Atlas is 45k', type: 'preference' })).id).not.toBe(
      decision.id,
    );
    expect(
      (await e.remember({ agentId: 'b', content: 'Budget for Atlas is 50k', type: 'decision', conflict: false })).id,
    ).not.toBe(decision.id);
    const pinned = await e.remember({
      agentId: 'c',
      content: 'Budget for Atlas is 40k',
      type: 'decision',
      pinned: true,
    });
    expect((await e.remember({ agentId: 'c', content: 'Budget for Atlas is 45k', type: 'decision' })).id).not.toBe(
      pinned.id,
    );
    const linked = await e.remember({
      agentId: 'd',
      content: 'Preferred contact time is 9am',
      type: 'preference',
      linkedEntities: [{ type: 'contact', refId: '1' }],
    });
    const other = await e.remember({
      agentId: 'd',
      content: 'Preferred contact time is 10am',
      type: 'preference',
      linkedEntities: [{ type: 'contact', refId: '2' }],
    });
    expect(other.id).not.toBe(linked.id);
    await e.close();
  });

  it('stays off without an embedder or when disabled', async () => {
    const { engine: plain } = await createTestEngine();
    const a = await plain.remember({ agentId: 'a', content: 'Standup is at 9:30', type: 'decision' });
    expect((await plain.remember({ agentId: 'a', content: 'Standup is at 10:00', type: 'decision' })).id).not.toBe(
      a.id,
    );
    await plain.close();
    const { engine: off } = await createTestEngine({
      embedder: createBagOfWordsEmbedder(256),
      config: { remember: { conflict: { enabled: false, threshold: 0.1 } } },
    });
    const b = await off.remember({ agentId: 'a', content: 'Standup is at 9:30', type: 'decision' });
    expect((await off.remember({ agentId: 'a', content: 'Standup is at 10:00', type: 'decision' })).id).not.toBe(b.id);
    await off.close();
  });
});
