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
});
