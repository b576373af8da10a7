import { describe, expect, it } from 'vitest';
import { createTestEngine } from './helpers.js';

// Transcript search's own contract, beside scope (transcripts-scope.test.ts): results best first
// with ties in turn order, exactly `limit` of them, completed sessions only unless asked, deep
// enough to fill the limit when the best matches sit in open sessions; and deleting a session
// (through the registry) removes it from search in its scope only.

async function session(
  engine: Awaited<ReturnType<typeof createTestEngine>>['engine'],
  agentId: string,
  sessionKey: string,
  contents: readonly string[],
  complete = true,
) {
  await engine.transcripts.append({
    agentId,
    sessionKey,
    turns: contents.map((content) => ({ role: 'user' as const, content })),
  });
  if (complete) await engine.transcripts.complete({ agentId, sessionKey });
}

describe('transcript search order, limit and completion', () => {
  it('ranks best first, breaks ties by turn order, and returns exactly the limit', async () => {
    const { engine } = await createTestEngine();
    await session(engine, 'a', 's1', ['kayak trip planning', 'the kayak kayak kayak rental', 'a note about lunch']);
    await session(engine, 'a', 's2', ['kayak trip planning', 'kayak']);
    const all = await engine.transcripts.search({ agentId: 'a', query: 'kayak', limit: 10 });
    expect(all).toHaveLength(4);
    const scores = all.map((h) => h.score);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    // Best first in fact, not only sorted: three mentions beat one, and every hit scores.
    expect(all[0]).toMatchObject({ sessionKey: 's1', content: 'the kayak kayak kayak rental' });
    expect(scores.every((score) => score > 0)).toBe(true);
    expect(scores[0]).toBeGreaterThan(scores[scores.length - 1] ?? 1);
    // The two identical turns tie: they come in turn order (session s1's, then s2's).
    const ties = all.filter((h) => h.content === 'kayak trip planning');
    expect(ties.map((h) => [h.sessionKey, h.seq])).toEqual(
      [...ties].sort((x, y) => x.seq - y.seq).map((h) => [h.sessionKey, h.seq]),
    );
    expect(ties.map((h) => h.sessionKey)).toEqual(['s1', 's2']);
    expect(new Set(ties.map((h) => h.score)).size).toBe(1);
    const two = await engine.transcripts.search({ agentId: 'a', query: 'kayak', limit: 2 });
    expect(two.map((h) => [h.sessionKey, h.seq])).toEqual(all.slice(0, 2).map((h) => [h.sessionKey, h.seq]));
    await engine.close();
  });

  it('keeps to completed sessions unless asked, reading deeper when open sessions hold the best matches', async () => {
    const { engine } = await createTestEngine();
    // Twenty strong matches in an open session rank above the completed session's weaker ones.
    await session(
      engine,
      'a',
      'open',
      Array.from({ length: 20 }, (_, i) => `glacier glacier glacier hike ${i}`),
      false,
    );
    await session(engine, 'a', 'done', [
      'a long walk with one glacier in view and many other words around it',
      'another long sentence that mentions a glacier among many other words',
    ]);
    const completed = await engine.transcripts.search({ agentId: 'a', query: 'glacier', limit: 2 });
    expect(completed.map((h) => h.sessionKey)).toEqual(['done', 'done']);
    const any = await engine.transcripts.search({ agentId: 'a', query: 'glacier', limit: 2, completedOnly: false });
    expect(any.map((h) => h.sessionKey)).toEqual(['open', 'open']);
    await engine.close();
  });

  it('a deleted session leaves search in its scope only', async () => {
    const { engine } = await createTestEngine();
    await session(engine, 'a', 'trip', ['the canyon trip']);
    await session(engine, 'b', 'trip', ['the canyon trip']);
    const category = await engine.registry.create({ agentId: 'a', name: 'Travel plans' });
    await engine.registry.link({ agentId: 'a', id: category.id, object: { kind: 'transcript', id: 'trip' } });
    const deleted = await engine.registry.delete({ agentId: 'a', id: category.id });
    expect(deleted.remove).toEqual([{ kind: 'transcript', id: 'trip' }]);
    expect(await engine.transcripts.search({ agentId: 'a', query: 'canyon' })).toEqual([]);
    expect(await engine.transcripts.get({ agentId: 'a', sessionKey: 'trip' })).toBeUndefined();
    expect((await engine.transcripts.search({ agentId: 'b', query: 'canyon' })).map((h) => h.sessionKey)).toEqual([
      'trip',
    ]);
    await engine.close();
  });
});
