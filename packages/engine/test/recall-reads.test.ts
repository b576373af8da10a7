import { createManualClock } from '@memory/core';
import { insertAspect, insertClaim, insertEntity, supersedeClaim } from '@memory/store';
import { SqlExecutor } from '@memory/store/sql';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

// What recall's store reads add to a result beyond finding it (found by mutation testing of
// store/src/repositories/recall-reads.ts and the search functions: each case fails under a change
// the scope tests let through).

async function engineWith(config: Record<string, unknown>, withEmbedder = true) {
  const db = new Database(':memory:');
  const { engine } = await createTestEngine({
    database: { database: db },
    clock: createManualClock(T0),
    ...(withEmbedder ? { embedder: createBagOfWordsEmbedder(32) } : {}),
    config,
  });
  return { engine, sql: new SqlExecutor(db) };
}

describe('recall reads', () => {
  it('with sqlite-vec the semantic channel searches every vector, not a recent window', async (ctx) => {
    const { engine } = await engineWith({
      recall: { vectorScanWindow: 2, searchWindowDays: null, channels: { lexical: false, hints: false } },
    });
    if (!engine.vector.available) ctx.skip();
    const ids: string[] = [];
    for (const word of ['amber', 'birch', 'cedar', 'dune', 'elm'])
      ids.push((await engine.remember({ agentId: 'a', content: `${word} forest walk notes` })).id);
    const response = await engine.recall({ agentId: 'a', query: 'amber forest walk', limit: 10 });
    expect(response.vectorCompleteness).toBe('exact');
    expect(response.searchedWindow).toBeUndefined();
    // The oldest memory is outside a window of 2 and is still found.
    expect(response.results.map((r) => r.id)).toContain(ids[0]);
  });

  it('memories other channels found get their cosine scored even when outside the semantic top k', async () => {
    const { engine } = await engineWith({
      store: { vectorExtension: 'off' },
      recall: { semanticCandidates: 2, searchWindowDays: null },
    });
    for (let i = 0; i < 6; i++) await engine.remember({ agentId: 'a', content: `quarterly budget review item ${i}` });
    const response = await engine.recall({ agentId: 'a', query: 'quarterly budget', limit: 10, explain: true });
    expect(response.results).toHaveLength(6);
    for (const r of response.results) expect(r.channels.semantic).toBeGreaterThan(0);
    expect(response.results.filter((r) => r.channels.lexical !== undefined)).toHaveLength(6);
  });

  it('a memory whose knowledge-graph claims were all superseded is dampened for currentness', async () => {
    const { engine, sql } = await engineWith(
      { recall: { searchWindowDays: null }, traversal: { enabled: false } },
      false,
    );
    const old = await engine.remember({ agentId: 'a', content: 'Priya leads the platform team' });
    const current = await engine.remember({ agentId: 'a', content: 'Priya leads the data team now' });
    insertEntity(sql, { id: 'priya', agentId: 'a', name: 'Priya', now: T0 });
    insertAspect(sql, { id: 'role', agentId: 'a', entityId: 'priya', name: 'role', now: T0 });
    const claim = (id: string, memoryId: string) =>
      insertClaim(sql, {
        id,
        agentId: 'a',
        entityId: 'priya',
        aspectId: 'role',
        claimKey: 'leads',
        content: id,
        sourceMemoryId: memoryId,
        now: T0,
      });
    claim('c-old', old.id);
    claim('c-new', current.id);
    supersedeClaim(sql, { oldId: 'c-old', newId: 'c-new', newValidFrom: null, now: T0 });
    const response = await engine.recall({ agentId: 'a', query: 'Priya leads team', limit: 5, explain: true });
    const byId = new Map(response.results.map((r) => [r.id, r]));
    expect(byId.get(old.id)?.explanation?.adjustments).toMatchObject({ currentness: 0.8 });
    expect(byId.get(current.id)?.explanation?.adjustments?.currentness).toBeUndefined();
  });

  it('a query with no searchable token finds nothing, on every path, without errors', async () => {
    const { engine } = await engineWith({ recall: { searchWindowDays: null } }, false);
    await engine.remember({ agentId: 'a', content: 'The and of are everywhere in this note' });
    await engine.transcripts.append({
      agentId: 'a',
      sessionKey: 's',
      turns: [{ role: 'user', content: 'the and of' }],
    });
    await engine.transcripts.complete({ agentId: 'a', sessionKey: 's' });
    const response = await engine.recall({ agentId: 'a', query: '?! -- ...' });
    expect(response.results).toEqual([]);
    expect(response.warnings).toEqual([]);
    expect(await engine.transcripts.search({ agentId: 'a', query: '?! -- ...' })).toEqual([]);
  });
});
