import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isMemoryError } from '../src/index.js';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

async function engineOnHostDb(overrides = {}) {
  const db = new Database(':memory:');
  const { engine, clock } = await createTestEngine({ database: { database: db }, ...overrides });
  return { engine, clock, db };
}

describe('remember', () => {
  it('stores a memory with its history row and scoped text postings', async () => {
    const { engine, db } = await engineOnHostDb();
    const { id, deduped } = await engine.remember({
      agentId: 'bot',
      content: '  Alice   prefers green tea.  ',
      type: 'preference',
      importance: 0.8,
      tags: ['drinks'],
      project: 'kitchen',
      who: 'alice',
      source: { type: 'message', id: 'msg-1' },
    });
    expect(deduped).toBe(false);
    const memory = await engine.getMemory({ agentId: 'bot', id });
    expect(memory).toMatchObject({
      id,
      agentId: 'bot',
      content: 'Alice prefers green tea.',
      type: 'preference',
      importance: 0.8,
      tags: ['drinks'],
      project: 'kitchen',
      who: 'alice',
      source: { type: 'message', id: 'msg-1' },
      pinned: false,
      deleted: false,
    });
    const history = await engine.history({ agentId: 'bot', id });
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({
      event: 'created',
      newContent: 'Alice prefers green tea.',
      changedBy: 'bot',
      actorType: 'agent',
    });
    expect(
      db
        .prepare(
          "SELECT count(*) AS n FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory' AND s.agent_id = 'bot' AND p.term = 'green'",
        )
        .get(),
    ).toEqual({ n: 1 });
  });

  it('dedups the same normalized content within one agent and never across agents', async () => {
    const { engine } = await createTestEngine();
    const first = await engine.remember({ agentId: 'a', content: 'The deploy window is Friday.' });
    const again = await engine.remember({ agentId: 'a', content: 'the   DEPLOY window is friday' });
    const other = await engine.remember({ agentId: 'b', content: 'The deploy window is Friday.' });
    expect(again).toEqual({ id: first.id, deduped: true });
    expect(other.deduped).toBe(false);
    expect(other.id).not.toBe(first.id);
    expect(await engine.history({ agentId: 'a', id: first.id })).toHaveLength(1);
  });

  it('stores a new memory when the same content was forgotten', async () => {
    const { engine } = await createTestEngine();
    const first = await engine.remember({ agentId: 'a', content: 'Use tabs' });
    await engine.forget({ agentId: 'a', id: first.id, reason: 'changed style' });
    const second = await engine.remember({ agentId: 'a', content: 'Use tabs' });
    expect(second.deduped).toBe(false);
    expect(second.id).not.toBe(first.id);
  });

  it('projects linked entities into memory_links rows', async () => {
    const { engine, db } = await engineOnHostDb();
    const { id } = await engine.remember({
      agentId: 'a',
      content: 'Call back about the invoice',
      linkedEntities: [
        { type: 'contact', refId: '42', label: 'Dana' },
        { type: 'thread', refId: 't-9' },
      ],
    });
    expect(
      db.prepare('SELECT ref_type, ref_id, label FROM memory_links WHERE memory_id = ? ORDER BY ref_type').all(id),
    ).toEqual([
      { ref_type: 'contact', ref_id: '42', label: 'Dana' },
      { ref_type: 'thread', ref_id: 't-9', label: null },
    ]);
    expect((await engine.getMemory({ agentId: 'a', id }))?.linkedEntities).toEqual([
      { type: 'contact', refId: '42', label: 'Dana' },
      { type: 'thread', refId: 't-9' },
    ]);
  });

  it('links to existing entities of the same agent only, by name or alias, and never creates entities', async () => {
    const { engine, db } = await engineOnHostDb();
    const insert = db.prepare(
      'INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, ?, ?, ?, 0, 0)',
    );
    insert.run('e-alice', 'a', 'Alice', 'alice');
    insert.run('e-acme', 'a', 'Acme Corp', 'acme corp');
    insert.run('e-bob-b', 'b', 'Bob', 'bob');
    db.prepare(
      "INSERT INTO entity_aliases (entity_id, agent_id, alias, canonical_alias, created_at) VALUES ('e-acme', 'a', 'ACME', 'acme', 0)",
    ).run();

    const { id } = await engine.remember({
      agentId: 'a',
      content: "Alice's contract with ACME renews in May; Bob signs it.",
    });
    const mentions = db
      .prepare('SELECT entity_id, mention_text FROM memory_entity_mentions WHERE memory_id = ? ORDER BY entity_id')
      .all(id);
    expect(mentions).toEqual([
      { entity_id: 'e-acme', mention_text: 'ACME' },
      { entity_id: 'e-alice', mention_text: "Alice's" },
    ]);
    expect(db.prepare("SELECT mentions FROM entities WHERE id = 'e-alice'").get()).toEqual({ mentions: 1 });
    expect(db.prepare('SELECT count(*) AS n FROM entities').get()).toEqual({ n: 3 });
  });

  it('rememberMany returns results in input order, dedups within the batch, and spans several transactions', async () => {
    const { engine } = await createTestEngine({ config: { remember: { batchSize: 3 } } });
    const memories = Array.from({ length: 10 }, (_, i) => ({ content: `Fact number ${i % 7}` }));
    const results = await engine.rememberMany({ agentId: 'a', memories });
    expect(results).toHaveLength(10);
    expect(results.filter((r) => !r.deduped)).toHaveLength(7);
    expect(results[7]).toEqual({ id: results[0]?.id, deduped: true });
    for (const [i, r] of results.entries()) {
      expect((await engine.getMemory({ agentId: 'a', id: r.id }))?.content).toBe(`Fact number ${i % 7}`);
    }
  });

  it('rememberMany writes nothing when any input is invalid', async () => {
    const { engine, db } = await engineOnHostDb();
    const memories = [{ content: 'fine' }, { content: '   ' }];
    await expect(engine.rememberMany({ agentId: 'a', memories })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/1\.content/),
    });
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
  });

  it("rememberMany writes to the call's agent only: a memory naming another agent is INVALID_INPUT", async () => {
    const { engine, db } = await engineOnHostDb();
    const memories = [
      { content: 'fine' },
      { content: 'also fine', agentId: 'a' },
      { content: 'elsewhere', agentId: 'b' },
    ];
    await expect(engine.rememberMany({ agentId: 'a', memories: memories as never })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringMatching(/memories\.2\.agentId/),
    });
    expect(db.prepare('SELECT count(*) AS n FROM memories').get()).toEqual({ n: 0 });
    const results = await engine.rememberMany({ agentId: 'a', memories: memories.slice(0, 2) as never });
    expect(db.prepare('SELECT agent_id, count(*) AS n FROM memories GROUP BY agent_id').all()).toEqual([
      { agent_id: 'a', n: results.length },
    ]);
    await expect(engine.rememberMany({ memories: [] } as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(engine.rememberMany([{ agentId: 'a', content: 'old style' }] as never)).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('rememberMany stops before the next batch once its signal aborts; committed batches stay', async () => {
    const controller = new AbortController();
    // The embedder is called once per batch, before the batch's transaction: abort during the first.
    const embedder = createBagOfWordsEmbedder();
    const embed = embedder.embed;
    embedder.embed = async (texts) => {
      controller.abort(new Error('host timeout'));
      return embed(texts);
    };
    const { engine } = await createTestEngine({ embedder, config: { remember: { batchSize: 3 } } });
    const memories = Array.from({ length: 9 }, (_, i) => ({ content: `Batch fact ${i}` }));
    const error = await engine.rememberMany({ agentId: 'a', memories, signal: controller.signal }).catch((e) => e);
    expect(isMemoryError(error)).toBe(true);
    expect(error).toMatchObject({ code: 'ABORTED', details: { reason: 'aborted', operation: 'rememberMany' } });
    expect((error as Error).cause).toEqual(new Error('host timeout'));
    // The first batch committed; remembering everything again dedups it and writes the rest.
    const again = await engine.rememberMany({ agentId: 'a', memories });
    expect(again.map((r) => r.deduped)).toEqual([true, true, true, false, false, false, false, false, false]);
    await expect(engine.rememberMany({ agentId: 'a', memories, signal: controller.signal })).rejects.toMatchObject({
      details: { reason: 'aborted' },
    });
    await expect(engine.rememberMany({ agentId: 'a', memories, signal: 'soon' as never })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
  });

  it('keeps a historical createdAt when given', async () => {
    const { engine } = await createTestEngine();
    const { id } = await engine.remember({
      agentId: 'a',
      content: 'We met in Lisbon',
      createdAt: '2023-05-08T13:56:00Z',
    });
    expect((await engine.getMemory({ agentId: 'a', id }))?.createdAt).toBe(Date.UTC(2023, 4, 8, 13, 56));
  });
});

describe('remember with an embedder', () => {
  it('stores canonical vectors and indexes them in vec0 partitioned by agent, embedding only new content', async () => {
    const embedder = createBagOfWordsEmbedder();
    const { engine, db } = await engineOnHostDb({ embedder });
    const a = await engine.remember({ agentId: 'a', content: 'Alice prefers green tea' });
    await engine.remember({ agentId: 'b', content: 'Bob prefers black coffee' });
    const callsBefore = embedder.calls;
    await engine.remember({ agentId: 'a', content: 'alice prefers green tea.' });
    expect(embedder.calls).toBe(callsBefore);
    expect(db.prepare('SELECT agent_id, source_id, dimensions FROM embeddings ORDER BY agent_id').all()).toEqual([
      { agent_id: 'a', source_id: a.id, dimensions: 64 },
      { agent_id: 'b', source_id: expect.any(String), dimensions: 64 },
    ]);
    const [query] = await embedder.embed(['green tea']);
    const knn = db
      .prepare(
        'SELECT e.source_id FROM vec_memory_1 v JOIN embeddings e ON e.seq = (v.rowid & 1099511627775) WHERE v.embedding MATCH ? AND k = 10 AND v.agent_id = ?',
      )
      .all(Buffer.from(query!.buffer), 'a');
    expect(knn).toEqual([{ source_id: a.id }]);
    expect(await engine.getMemory({ agentId: 'a', id: a.id })).toMatchObject({ content: 'Alice prefers green tea' });
  });

  it('still stores the memory when the embedder fails or returns wrong dimensions', async () => {
    const failing = { model: 'down', dimensions: 8, embed: async () => Promise.reject(new Error('503 from embedder')) };
    const { engine, db } = await engineOnHostDb({ embedder: failing });
    const { id } = await engine.remember({ agentId: 'a', content: 'Survives an embedder outage' });
    expect(await engine.getMemory({ agentId: 'a', id })).toBeDefined();
    expect(db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: 0 });

    const wrong = {
      model: 'liar',
      dimensions: 8,
      embed: async (t: readonly string[]) => t.map(() => new Float32Array(3)),
    };
    const second = await engineOnHostDb({ embedder: wrong });
    const r = await second.engine.remember({ agentId: 'a', content: 'Survives a bad vector' });
    expect(await second.engine.getMemory({ agentId: 'a', id: r.id })).toBeDefined();
    expect(second.db.prepare('SELECT count(*) AS n FROM embeddings').get()).toEqual({ n: 0 });
  });
});
