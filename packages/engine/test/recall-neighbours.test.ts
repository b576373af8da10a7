import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

const MINUTE = 60_000;

// One conversation: the question turn names the topic, the reply that answers it does not.
const TURNS = [
  'Mel: How was the pottery class you went to?',
  'Caroline: Honestly it was the best evening in months, I made a small bowl.',
  'Mel: Did you see the game on Sunday?',
  'Caroline: No, I was busy with the kids all day.',
];

async function engineWith(weight: number) {
  const { engine } = await createTestEngine({
    config: { recall: { searchWindowDays: null, recencyBoost: 0, neighbours: { weight } } },
  });
  // Turns of one session share a time; another session of the same agent is a day later.
  await engine.rememberMany({
    agentId: 'a',
    memories: TURNS.map((content) => ({ content, createdAt: T0, source: { type: 'chat', id: content.slice(0, 8) } })),
  });
  return engine;
}

describe('recall: neighbouring-turn context', () => {
  it('surfaces the reply to a matching turn, ranked below the turn itself', async () => {
    const engine = await engineWith(0.5);
    const { results } = await engine.recall({ agentId: 'a', query: 'pottery class' });
    expect(results.map((r) => r.content).slice(0, 2)).toEqual([TURNS[0], TURNS[1]]);
    await engine.close();
  });

  it('is off at weight 0: only matching turns come back', async () => {
    const engine = await engineWith(0);
    const { results } = await engine.recall({ agentId: 'a', query: 'pottery class' });
    expect(results.map((r) => r.content)).toEqual([TURNS[0]]);
    await engine.close();
  });

  it('never lends across agents, source types, the time gap, to deleted or long memories', async () => {
    const { engine } = await createTestEngine({
      config: {
        recall: { searchWindowDays: null, recencyBoost: 0, neighbours: { weight: 0.5, gapMinutes: 30, maxChars: 200 } },
      },
    });
    let n = 0;
    const turn = (agentId: string, content: string, createdAt: number, type = 'chat') =>
      engine.remember({ agentId, content, createdAt, source: { type, id: String(n++) } });
    await turn('a', 'Mel: How was the pottery class?', T0);
    // Another agent's turn written right after, at the same time.
    await turn('b', 'Caroline: it was lovely', T0);
    // The agent's memories around it: a note with another source type, one without a source,
    // one an hour later (beyond the gap), a long one (beyond maxChars), a deleted one.
    await turn('a', 'Caroline: other source', T0, 'email');
    await engine.remember({ agentId: 'a', content: 'Caroline: no source', createdAt: T0 });
    await turn('a', 'Caroline: I loved it, thanks', T0 + 60 * MINUTE);
    await turn('a', `Notes: ${'words '.repeat(60)}`, T0 - MINUTE);
    const gone = await turn('a', 'Caroline: deleted reply', T0 + MINUTE);
    await engine.forget({ agentId: 'a', id: gone.id, reason: 'test' });
    // The next live chat turn within the gap: the only neighbour.
    await turn('a', 'Caroline: it was a calm evening', T0 + 2 * MINUTE);
    const { results } = await engine.recall({ agentId: 'a', query: 'pottery class' });
    expect(results.map((r) => r.content)).toEqual([
      'Mel: How was the pottery class?',
      'Caroline: it was a calm evening',
    ]);
    const other = await engine.recall({ agentId: 'b', query: 'pottery class' });
    expect(other.results).toEqual([]);
    await engine.close();
  });

  it('memories without a source have no neighbours', async () => {
    const { engine } = await createTestEngine({ config: { recall: { searchWindowDays: null } } });
    await engine.rememberMany({ agentId: 'a', memories: TURNS.map((content) => ({ content, createdAt: T0 })) });
    const { results } = await engine.recall({ agentId: 'a', query: 'pottery class' });
    expect(results.map((r) => r.content)).toEqual([TURNS[0]]);
    await engine.close();
  });
});
