import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

const DAY = 86_400_000;

describe('engine.list', () => {
  it('pages a scope newest first with a keyset cursor, with filters, and nothing of other scopes', async () => {
    const { engine, clock } = await createTestEngine();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const { id } = await engine.remember({
        agentId: 'a',
        content: `memory ${i}`,
        type: i % 3 === 0 ? 'decision' : 'fact',
        tags: i % 2 === 0 ? ['even'] : ['odd'],
      });
      ids.push(id);
      // Two memories per millisecond: ties on created_at are ordered by insertion.
      if (i % 2 === 1) clock.advance(1);
    }
    await engine.remember({ agentId: 'b', content: 'memory of b' });
    await engine.forget({ agentId: 'a', id: ids[24] ?? '', reason: 'x' });

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await engine.list({ agentId: 'a', limit: 10, ...(cursor ? { cursor } : {}) });
      seen.push(...page.memories.map((m) => m.id));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(ids.slice(0, 24).reverse());

    const all = await engine.list({ agentId: 'a', includeForgotten: true, limit: 500 });
    expect(all.memories.map((m) => m.id)).toEqual([...ids].reverse());
    expect(all.memories[0]).toMatchObject({ deleted: true });
    expect(all.nextCursor).toBeNull();

    const decisions = await engine.list({ agentId: 'a', type: 'decision', tags: ['even'] });
    expect(decisions.memories.map((m) => m.content)).toEqual(['memory 18', 'memory 12', 'memory 6', 'memory 0']);
    const window = await engine.list({ agentId: 'a', since: T0 + 2, until: T0 + 4 });
    expect(window.memories.map((m) => m.content)).toEqual(['memory 7', 'memory 6', 'memory 5', 'memory 4']);
    expect((await engine.list({ agentId: 'c' })).memories).toEqual([]);

    await expect(engine.list({ agentId: 'a', cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(engine.list({ agentId: 'a', limit: 0 })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.list({ agentId: 'a', type: 'nope' as 'fact' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await engine.close();
  });

  it('reads a deep page through the index, not by skipping rows', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db } });
    await engine.remember({ agentId: 'a', content: 'one' });
    const plan = db
      .prepare(
        `EXPLAIN QUERY PLAN SELECT m.* FROM memories AS m WHERE m.agent_id = ? AND (m.created_at, m.seq) < (?, ?)
         ORDER BY m.created_at DESC, m.seq DESC LIMIT 10`,
      )
      .all('a', 0, 0) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join(' ')).toMatch(
      /USING INDEX memories_agent_created \(agent_id=\? AND created_at<\?\)/,
    );
    await engine.close();
  });
});

describe('engine.health', () => {
  it('counts live, forgotten, expiring, purged, duplicates, never recalled, stale and vectors per scope', async () => {
    const { engine, clock } = await createTestEngine({ embedder: createBagOfWordsEmbedder() });
    const a = await engine.remember({ agentId: 'a', content: 'Alice likes tea' });
    await engine.remember({ agentId: 'a', content: 'alice likes tea.' }); // a duplicate, prevented
    const b = await engine.remember({ agentId: 'a', content: 'Bob likes coffee' });
    await engine.remember({ agentId: 'a', content: 'Carol expires soon', expiresAt: T0 + DAY });
    await engine.remember({ agentId: 'other', content: 'not counted' });
    await engine.forget({ agentId: 'a', id: b.id, reason: 'x' });
    await engine.recall({ agentId: 'a', query: 'Alice tea' });
    await new Promise((resolve) => setTimeout(resolve, 5));

    const health = await engine.health({ agentId: 'a' });
    expect(health).toMatchObject({
      agentId: 'a',
      live: 2,
      forgotten: 1,
      expiring: 1,
      purged: 0,
      last30Days: { duplicatesPrevented: 1, conflictsMerged: 0, reaped: 0 },
      neverRecalled: 1,
      stale: 0,
      orphanEntities: 0,
      vectors: { model: 'bow-test', current: 2, missing: 0, otherModel: 0 },
      pendingMaintenance: { purgeDue: 0, jobs: 0 },
    });
    clock.advance(91 * DAY);
    const later = await engine.health({ agentId: 'a' });
    expect(later).toMatchObject({ stale: 2, pendingMaintenance: { purgeDue: 2 } });
    // The duplicate was prevented more than 30 days ago.
    expect(later.last30Days.duplicatesPrevented).toBe(0);
    await engine.maintenance.run({ task: 'purge' });
    expect(await engine.health({ agentId: 'a' })).toMatchObject({ forgotten: 0, expiring: 0, purged: 2, live: 1 });
    expect(a.id).toBeDefined();
    await expect(engine.health({ agentId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await engine.close();
  });

  it('reads index entries only: every count query plan is a covering index', async () => {
    const db = new Database(':memory:');
    const { engine } = await createTestEngine({ database: { database: db } });
    await engine.remember({ agentId: 'a', content: 'one' });
    const plans = [
      "SELECT embedding_model, count(*), sum(last_accessed IS NULL), sum(last_accessed < 5 OR (last_accessed IS NULL AND created_at < 5)) FROM memories INDEXED BY memories_agent_health WHERE agent_id = 'a' AND is_deleted = 0 GROUP BY embedding_model",
      "SELECT count(*) FROM memories INDEXED BY memories_agent_forgotten WHERE agent_id = 'a' AND is_deleted = 1",
    ].map((q) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${q}`).all() as Array<{ detail: string }>).map((r) => r.detail).join(' '),
    );
    for (const plan of plans) expect(plan).toMatch(/COVERING INDEX/);
    await engine.close();
  });
});
