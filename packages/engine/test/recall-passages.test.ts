import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// A long memory: one sentence about the query's subject among many unrelated ones. Its mean vector
// is far from the query; its best passage is close.
const FILLER = Array.from({ length: 40 }, (_, i) => `Filler sentence number ${i} talks about weather maps and trains.`);
const LONG = [...FILLER.slice(0, 20), 'Green oolong ceremony kettle.', ...FILLER.slice(20)].join(' ');

async function cosineOfLong(maxCandidates: number): Promise<number | undefined> {
  const { engine } = await createTestEngine({
    embedder: createBagOfWordsEmbedder(256),
    config: {
      recall: { searchWindowDays: null, channels: { lexical: false }, passages: { maxCandidates, chars: 40 } },
    },
  });
  await engine.remember({ agentId: 'a', content: LONG, createdAt: T0 });
  const { results } = await engine.recall({ agentId: 'a', query: 'green oolong ceremony kettle' });
  await engine.close();
  return results.find((r) => r.content === LONG)?.channels.semantic;
}

describe('recall: long memories scored by their best passage', () => {
  it('raises a long memory to its best passage’s cosine, and leaves it at its mean vector when off', async () => {
    const off = await cosineOfLong(0);
    const on = await cosineOfLong(10);
    expect(on).toBeGreaterThan(0.9);
    expect(off ?? 0).toBeLessThan(0.5);
  });
});
