import { describe, expect, it } from 'vitest';
import { createTestEngine, T0 } from './helpers.js';

async function seeded() {
  const { engine, clock } = await createTestEngine();
  const ids: Record<string, string> = {};
  const add = async (key: string, content: string, extra: Record<string, unknown> = {}) => {
    ids[key] = (await engine.remember({ agentId: 'a', content, ...extra })).id;
  };
  await add('tea', 'Alice prefers green tea over coffee', {
    type: 'preference',
    tags: ['drinks', 'alice'],
    project: 'home',
  });
  await add('coffee', 'Bob drinks black coffee every morning', {
    type: 'preference',
    tags: ['drinks'],
    project: 'home',
  });
  await add('deploy', 'We decided to deploy the billing service on Tuesdays', {
    type: 'decision',
    project: 'work',
    createdAt: T0 - 30 * 86_400_000,
  });
  await add('freeze', 'Code freeze before the release: no deploys after Thursday', {
    type: 'constraint',
    project: 'work',
  });
  await add('cpp', 'The renderer is written in C++ and the CLI in Node.js', { type: 'fact', project: 'work' });
  return { engine, clock, ids };
}

describe('lexical recall', () => {
  it('ranks the best BM25 match first and reports the lexical channel and tier', async () => {
    const { engine, ids } = await seeded();
    const response = await engine.recall({ agentId: 'a', query: 'What does Alice drink, tea?' });
    expect(response.results[0]?.id).toBe(ids['tea']);
    expect(response.query).toEqual({ tokens: ['alice', 'drink', 'tea'], mode: 'and' });
    for (const r of response.results) {
      expect(r.tier).toBe('related');
      expect(r.channels.lexical).toBeGreaterThan(0);
      expect(r.channels.semantic).toBeUndefined();
      expect(r.score).toBeGreaterThan(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    // Lexical scores are normalized by the query's best match.
    expect(response.results[0]?.channels.lexical).toBe(1);
    expect(response.vectorCompleteness).toBe('none');
    expect(response.timings.totalMs).toBeGreaterThanOrEqual(response.timings.lexicalMs);
  });

  it('puts results matching every token before results matching some', async () => {
    const { engine, ids } = await seeded();
    const { results } = await engine.recall({ agentId: 'a', query: 'coffee morning' });
    expect(results.map((r) => r.id)).toEqual([ids['coffee'], ids['tea']]);
  });

  it('ORs long queries, dropping stop words', async () => {
    const { engine, ids } = await seeded();
    const response = await engine.recall({
      agentId: 'a',
      query: 'when is the release and when do we deploy the billing service',
    });
    expect(response.query.mode).toBe('or');
    expect(response.query.tokens).not.toContain('the');
    expect(
      response.results
        .slice(0, 2)
        .map((r) => r.id)
        .sort(),
    ).toEqual([ids['deploy'], ids['freeze']].sort());
  });

  it('stems English words and folds diacritics', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({
      agentId: 'a',
      content: 'Northwind renews their contract at the Café Zürich',
    });
    expect(
      (await engine.recall({ agentId: 'a', query: 'when does the contract renew?' })).results.map((r) => r.id),
    ).toEqual([id]);
    expect((await engine.recall({ agentId: 'a', query: 'cafe zurich' })).results.map((r) => r.id)).toEqual([id]);
  });

  it('searches code-ish tokens literally: c++ and node.js', async () => {
    const { engine, ids } = await seeded();
    expect((await engine.recall({ agentId: 'a', query: 'c++' })).results.map((r) => r.id)).toEqual([ids['cpp']]);
    expect((await engine.recall({ agentId: 'a', query: 'node.js' })).results.map((r) => r.id)).toEqual([ids['cpp']]);
  });

  it('applies type, tags, project and time filters', async () => {
    const { engine, ids } = await seeded();
    const q = 'tea coffee deploy freeze renderer alice bob';
    const byType = await engine.recall({ agentId: 'a', query: q, type: ['decision', 'constraint'] });
    expect(byType.results.map((r) => r.id).sort()).toEqual([ids['deploy'], ids['freeze']].sort());
    const byTags = await engine.recall({ agentId: 'a', query: q, tags: ['drinks', 'alice'] });
    expect(byTags.results.map((r) => r.id)).toEqual([ids['tea']]);
    const byProject = await engine.recall({ agentId: 'a', query: q, project: 'home' });
    expect(byProject.results.map((r) => r.id).sort()).toEqual([ids['tea'], ids['coffee']].sort());
    const old = await engine.recall({ agentId: 'a', query: q, until: T0 - 86_400_000 });
    expect(old.results.map((r) => r.id)).toEqual([ids['deploy']]);
    const recent = await engine.recall({ agentId: 'a', query: q, since: new Date(T0) });
    expect(recent.results.map((r) => r.id)).not.toContain(ids['deploy']);
    expect(recent.results).toHaveLength(4);
  });

  it('honours limit (default 10, max 50)', async () => {
    const { engine } = await createTestEngine();
    await engine.rememberMany({
      agentId: 'a',
      memories: Array.from({ length: 60 }, (_, i) => ({ content: `note ${i} about lanterns` })),
    });
    expect((await engine.recall({ agentId: 'a', query: 'lanterns' })).results).toHaveLength(10);
    expect((await engine.recall({ agentId: 'a', query: 'lanterns', limit: 50 })).results).toHaveLength(50);
    await expect(engine.recall({ agentId: 'a', query: 'lanterns', limit: 51 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.recall({ agentId: 'a', query: 'lanterns', limit: 0 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.recall({ agentId: 'a', query: 'lanterns', limit: 2.5 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('skips expired memories', async () => {
    const { engine, clock } = await createTestEngine();
    await engine.remember({ agentId: 'a', content: 'Parking spot 12 today', expiresAt: T0 + 1000 });
    expect((await engine.recall({ agentId: 'a', query: 'parking' })).results).toHaveLength(1);
    clock.advance(1001);
    expect((await engine.recall({ agentId: 'a', query: 'parking' })).results).toHaveLength(0);
  });
});
