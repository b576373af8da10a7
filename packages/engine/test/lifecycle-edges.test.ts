import type { EmbeddingProvider } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// The memory lifecycle at its edges: conflict detection's expiry, importance and threshold, and
// the recover window's last moment. Planted bugs the conflict and lifecycle tests let through are
// what these pin (docs/mutation-testing.md, "The memory lifecycle").

const OLD = 'The weekly standup is at 9:30 on Monday';
const NEW = 'The weekly standup is at 10:00 on Tuesday';
const DAY = 86_400_000;

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

describe('recover window edges', () => {
  it('a forgotten memory can still be recovered at the last moment of the window, not a millisecond after', async () => {
    for (const [after, recovered] of [
      [7 * DAY, true],
      [7 * DAY + 1, false],
    ] as const) {
      const { engine: e, clock } = await createTestEngine({ config: { retention: { recoverWindowDays: 7 } } });
      const { id } = await e.remember({ agentId: 'a', content: 'Lunch order: ramen' });
      await e.forget({ agentId: 'a', id, reason: 'oops' });
      clock.advance(after);
      const outcome = await e.recover({ agentId: 'a', id }).then(
        () => 'recovered',
        (error: { code?: string }) => error.code,
      );
      expect({ after, outcome }).toEqual({ after, outcome: recovered ? 'recovered' : 'CONFLICT' });
      await e.close();
    }
  });
});
