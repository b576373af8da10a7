import type { EmbeddingProvider } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// Conflict detection at its edges: a memory that has expired is never updated in place (the new
// one is stored beside it). Planted bugs the conflict tests let through are what these pin
// (docs/mutation-testing.md, "The memory lifecycle").

const OLD = 'The weekly standup is at 9:30 on Monday';
const NEW = 'The weekly standup is at 10:00 on Tuesday';

async function engine() {
  return createTestEngine({
    embedder: createBagOfWordsEmbedder(256),
    config: { remember: { conflict: { threshold: 0.5 } } },
  });
}

describe('conflict detection edges', () => {
  it('never merges into a memory that expires at this very moment; a millisecond earlier it does', async () => {
    for (const [expiresIn, merged] of [
      [1000, false],
      [1001, true],
    ] as const) {
      const { engine: e, clock } = await engine();
      const first = await e.remember({ agentId: 'a', content: OLD, type: 'decision', expiresAt: T0 + expiresIn });
      clock.advance(1000);
      const second = await e.remember({ agentId: 'a', content: NEW, type: 'decision' });
      expect({ expiresIn, updated: second.updated === true, sameId: second.id === first.id }).toEqual({
        expiresIn,
        updated: merged,
        sameId: merged,
      });
      await e.close();
    }
  });

  it('a memory changed while a new one was being judged against it is not updated by it: the new one is stored beside it', async () => {
    // The remember judges against the old content while a modify (started at the same time, in
    // either order) gives the memory another subject; nothing may overwrite that content unjudged.
    for (const order of ['remember first', 'modify first'] as const) {
      const { engine: e } = await engine();
      const first = await e.remember({ agentId: 'a', content: OLD, type: 'decision' });
      const remember = () => e.remember({ agentId: 'a', content: NEW, type: 'decision' });
      const modify = () =>
        e.modify({ agentId: 'a', id: first.id, content: 'Lunch with the design team is at noon', reason: 'edit' });
      if (order === 'remember first') await Promise.all([remember(), modify()]);
      else await Promise.all([modify(), remember()]);
      const live = (await e.list({ agentId: 'a' })).memories.map((m) => m.content).sort();
      expect({ order, live }).toEqual({ order, live: ['Lunch with the design team is at noon', NEW] });
      await e.close();
    }
  });

  it('an update keeps the higher importance of the two: a casual restatement never demotes a memory', async () => {
    const { engine: e } = await engine();
    const first = await e.remember({ agentId: 'a', content: OLD, type: 'decision', importance: 0.9 });
    expect(await e.remember({ agentId: 'a', content: NEW, type: 'decision', importance: 0.2 })).toMatchObject({
      id: first.id,
      updated: true,
    });
    expect(await e.getMemory({ agentId: 'a', id: first.id })).toMatchObject({ content: NEW, importance: 0.9 });
    expect(
      await e.remember({
        agentId: 'a',
        content: 'The weekly standup is at 11:00 on Wednesday',
        type: 'decision',
        importance: 1,
      }),
    ).toMatchObject({ id: first.id, updated: true });
    expect((await e.getMemory({ agentId: 'a', id: first.id }))?.importance).toBe(1);
    await e.close();
  });

  it("the embedder's threshold is inclusive: a cosine exactly at it merges", async () => {
    // Every text gets the same unit vector (cosine exactly 1) from an embedder whose threshold is 1.
    const flat: EmbeddingProvider = {
      model: 'flat',
      dimensions: 4,
      conflictThreshold: 1,
      embed: async (texts) => texts.map(() => Float32Array.from([1, 0, 0, 0])),
    };
    const { engine: e } = await createTestEngine({ embedder: flat });
    const first = await e.remember({ agentId: 'a', content: OLD, type: 'decision' });
    expect(await e.remember({ agentId: 'a', content: NEW, type: 'decision' })).toMatchObject({
      id: first.id,
      updated: true,
    });
    await e.close();
  });
});
