import { createIdGenerator, createManualClock, createSeededRandom, type IdGenerator } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

const DAY = 86_400_000;

/** Ids that sort in the opposite order of creation: a tie broken by id would flip. */
function descendingIds(): IdGenerator {
  let n = 1_000_000;
  return { next: () => `m${String(n--).padStart(7, '0')}` };
}

// Equal-length texts with the same query-term frequency score the same on every channel.
const TEXTS = [
  'tea note alpha',
  'tea note bravo',
  'tea note charlie',
  'tea note delta',
  'tea note echo',
  'tea note foxtrot',
  'tea note golf',
  'tea note hotel',
];

async function listFor(ids: IdGenerator, embed: boolean): Promise<string[]> {
  const clock = createManualClock(T0);
  const { engine } = await createTestEngine({
    clock,
    ids,
    ...(embed ? { embedder: createBagOfWordsEmbedder() } : {}),
    config: { recall: { searchWindowDays: null, recencyBoost: 0 } },
  });
  // Two creation times, so recency decides between some ties and the content hash between others.
  await engine.rememberMany({
    agentId: 'a',
    memories: TEXTS.map((content, i) => ({ content, createdAt: T0 - (i % 2) * DAY })),
  });
  const { results } = await engine.recall({ agentId: 'a', query: 'tea', limit: 8 });
  await engine.close();
  return results.map((r) => r.content);
}

describe('recall order is deterministic', () => {
  it.each([false, true])('identical data gives an identical list whatever the ids (embedder: %s)', async (embed) => {
    const ascending = await listFor(
      createIdGenerator({ clock: createManualClock(T0), random: createSeededRandom(1) }),
      embed,
    );
    const other = await listFor(
      createIdGenerator({ clock: createManualClock(T0), random: createSeededRandom(99) }),
      embed,
    );
    const descending = await listFor(descendingIds(), embed);
    expect(ascending).toHaveLength(TEXTS.length);
    expect(other).toEqual(ascending);
    expect(descending).toEqual(ascending);
  });

  it('ties go to the newer memory first', async () => {
    const list = await listFor(descendingIds(), false);
    const newer = TEXTS.filter((_t, i) => i % 2 === 0);
    expect(new Set(list.slice(0, newer.length))).toEqual(new Set(newer));
  });
});
