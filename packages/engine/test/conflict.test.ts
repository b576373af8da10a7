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

describe('conflict detection on rememberMany', () => {
  const standup = 'The weekly standup is at 9:30 on Monday';
  const moved = 'The weekly standup is at 10:00 on Tuesday';
  const movedAgain = 'The weekly standup is at 11:00 on Wednesday';

  it('merges an item into the stored memory it updates, and says so per item', async () => {
    const e = await engine();
    const first = await e.remember({ agentId: 'a', content: standup, type: 'decision' });
    const results = await e.rememberMany({
      agentId: 'a',
      memories: [
        { content: moved, type: 'decision' },
        { content: 'Invoices go out on the first business day', type: 'decision' },
      ],
    });
    expect(results[0]).toEqual({ id: first.id, deduped: false, updated: true, previous: standup });
    expect(results[1]).toMatchObject({ deduped: false });
    expect(results[1]?.updated).toBeUndefined();
    expect((await e.getMemory({ agentId: 'a', id: first.id }))?.content).toBe(moved);
    expect((await e.history({ agentId: 'a', id: first.id })).at(-1)).toMatchObject({
      event: 'updated',
      oldContent: standup,
      newContent: moved,
      reason: expect.stringMatching(/conflict/),
    });
    expect((await e.list({ agentId: 'a' })).memories).toHaveLength(2);
    expect((await e.health({ agentId: 'a' })).last30Days.conflictsMerged).toBe(1);
    await e.close();
  });

  it('merges two items of one batch as remembering them one by one would, including a chain onto a stored memory', async () => {
    const e = await engine();
    const inBatch = await e.rememberMany({
      agentId: 'a',
      memories: [
        { content: standup, type: 'decision' },
        { content: moved, type: 'decision' },
      ],
    });
    expect(inBatch[1]).toEqual({ id: inBatch[0]?.id, deduped: false, updated: true, previous: standup });
    expect((await e.list({ agentId: 'a' })).memories.map((m) => m.content)).toEqual([moved]);

    const chain = await e.rememberMany({
      agentId: 'a',
      memories: [
        { content: movedAgain, type: 'decision' },
        { content: standup, type: 'decision' },
      ],
    });
    expect(chain).toEqual([
      { id: inBatch[0]?.id, deduped: false, updated: true, previous: moved },
      { id: inBatch[0]?.id, deduped: false, updated: true, previous: movedAgain },
    ]);
    expect((await e.history({ agentId: 'a', id: String(inBatch[0]?.id) })).map((h) => h.event)).toEqual([
      'created',
      'updated',
      'updated',
      'updated',
    ]);
    expect((await e.health({ agentId: 'a' })).last30Days.conflictsMerged).toBe(3);
    // The vector follows the last content.
    expect((await e.recall({ agentId: 'a', query: 'standup monday' })).results[0]?.id).toBe(inBatch[0]?.id);
    await e.close();
  });

  it('keeps the guards: other subjects, other kinds, unchecked kinds, pinned items, opt-outs per call and per item', async () => {
    const e = await engine(0.3);
    const subjects = await e.rememberMany({
      agentId: 'a',
      memories: [
        { content: 'Alice lives in Lisbon', type: 'preference' },
        { content: 'Bob lives in Lisbon', type: 'preference' },
        { content: 'Room 101 is the quiet room', type: 'decision' },
        { content: 'Room 102 is the quiet room', type: 'decision' },
      ],
    });
    expect(subjects.filter((r) => r.updated)).toEqual([]);
    const kinds = await e.rememberMany({
      agentId: 'b',
      memories: [
        { content: standup, type: 'decision' },
        { content: moved, type: 'incident' },
        { content: 'The office plant is watered on Monday', type: 'fact' },
        { content: 'The office plant is watered on Tuesday', type: 'fact' },
        { content: 'The lunch order goes in at 11:30 on Friday', type: 'decision', pinned: true },
        { content: 'The lunch order goes in at 12:00 on Friday', type: 'decision' },
      ],
    });
    expect(kinds.filter((r) => r.updated)).toEqual([]);
    const offForCall = await e.rememberMany({
      agentId: 'c',
      conflict: false,
      memories: [
        { content: standup, type: 'decision' },
        { content: moved, type: 'decision' },
      ],
    });
    expect(offForCall.filter((r) => r.updated)).toEqual([]);
    const offForItem = await e.rememberMany({
      agentId: 'd',
      memories: [
        { content: standup, type: 'decision' },
        { content: moved, type: 'decision', conflict: false },
      ],
    });
    expect(offForItem.filter((r) => r.updated)).toEqual([]);
    for (const [agentId, n] of [
      ['a', 4],
      ['b', 6],
      ['c', 2],
      ['d', 2],
    ] as const)
      expect((await e.list({ agentId })).memories).toHaveLength(n);
    await e.close();
  });
});
