import { createSequentialIds, isMemoryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import {
  type ContentCause,
  changeMemory,
  createMemories,
  findMemory,
  listHistory,
  type MemoryWriteDeps,
  type NewMemory,
  prepareContent,
} from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore, insertMemory } from '../src/testing.js';

// The memory writer's create path: what a new memory is written with, what happens to a
// duplicate, and what the writer refuses to pretend. Each case here failed under a mutation of
// create-memories.ts or memories.ts that the engine-level tests let through.

const NOW = Date.UTC(2026, 0, 1);

function deps(causes: Array<[string, ContentCause]> = []): MemoryWriteDeps {
  return {
    ids: createSequentialIds('w'),
    vectorAvailable: false,
    inlineEntityLinking: false,
    onContentLive: (_sql, memory) => causes.push([memory.id, memory.cause]),
  };
}

const memory = (agentId: string, content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: {},
  ...extra,
});

describe('createMemories', () => {
  it('writes the history and vector rows of a call in its order, 16 to a statement and the rest by binary digits, none for a duplicate', async () => {
    const store = await createTestStore();
    expect(store.vector.available).toBe(true);
    const inputs = Array.from({ length: 38 }, (_, i) =>
      memory('a', `Memory number ${i}.`, {
        embedding: i % 2 === 0 ? { model: 'toy', vector: new Float32Array([1, i, 0]) } : undefined,
      }),
    );
    // The 38th repeats the 5th: a duplicate, with no history row of its own.
    inputs[37] = memory('a', 'Memory number 4.', { audit: { actor: { id: 'ops', type: 'operator' }, reason: 'r' } });
    inputs[36] = memory('a', 'Memory number 36.', {
      audit: { actor: { id: 'ops', type: 'operator' }, sessionId: 's' },
    });
    const historyStatements: number[] = [];
    const countStatements: number[] = [];
    const memoryStatements: number[] = [];
    const vectorStatements: number[] = [];
    const mirrorStatements: number[] = [];
    const created = store.write((sql) =>
      createMemories(
        {
          ...sql,
          get: (q) => sql.get(q),
          all: (q) => {
            if (q.sql.startsWith('INSERT INTO memories')) memoryStatements.push(q.parameters.length / 21);
            if (q.sql.startsWith('INSERT INTO embeddings')) vectorStatements.push(q.parameters.length / 8);
            return sql.all(q);
          },
          arrays: (q) => sql.arrays(q),
          withMemoryTextIndexDeferred: (fn) => sql.withMemoryTextIndexDeferred(fn),
          get memoryTextIndexDeferred() {
            return sql.memoryTextIndexDeferred;
          },
          run: (q) => {
            if (q.sql.includes('INSERT INTO memory_history')) historyStatements.push(q.parameters.length / 13);
            if (q.sql.startsWith('INSERT INTO vec_memory_')) mirrorStatements.push(q.parameters.length / 4);
            if (q.sql.startsWith('INSERT INTO memory_counts')) countStatements.push(q.parameters.length / 4);
            return sql.run(q);
          },
        } as typeof sql,
        { ...deps(), vectorAvailable: store.vector.available },
        inputs,
        NOW,
      ),
    );
    expect(created.filter((c) => c.deduped)).toEqual([{ id: created[4]?.id, deduped: true }]);
    // 38 memory rows, one to a statement on SQLite (the duplicate's is refused by the unique index).
    expect(memoryStatements).toEqual(Array(38).fill(1));
    // 37 history rows: 16 + 16 + 4 + 1.
    expect(historyStatements).toEqual([16, 16, 4, 1]);
    // 18 vectors (the even inputs up to the 35th): 16 + 2, and their vec0 rows alike.
    expect(vectorStatements).toEqual([16, 2]);
    expect(mirrorStatements).toEqual([16, 2]);
    // The live counts: one upsert per model (all created today), not one per row (migration 21).
    expect(countStatements).toEqual([1, 1]);
    expect(
      store.read((sql) =>
        sql.all(raw("SELECT model, n FROM memory_counts WHERE agent_id = 'a' AND kind = 'live' ORDER BY model")),
      ),
    ).toEqual([
      { model: '', n: 19 },
      { model: 'toy', n: 18 },
    ]);
    const rows = store.read((sql) =>
      sql.all<{ memory_id: string; event: string; new_content: string; changed_by: string; session_id: string | null }>(
        raw('SELECT memory_id, event, new_content, changed_by, session_id FROM memory_history ORDER BY seq'),
      ),
    );
    expect(rows.map((r) => r.memory_id)).toEqual(created.slice(0, 37).map((c) => c.id));
    expect(rows.map((r) => r.new_content)).toEqual(inputs.slice(0, 37).map((m) => m.content.content));
    expect(rows.every((r) => r.event === 'created')).toBe(true);
    expect(rows[36]).toMatchObject({ changed_by: 'ops', session_id: 's' });
    expect(rows[35]).toMatchObject({ changed_by: 'a', session_id: null });
    // Each history row belongs to the memory of the same position (seqs follow the input order).
    const memoryIds = store.read((sql) => sql.all<{ id: string }>(raw('SELECT id FROM memories ORDER BY seq')));
    expect(memoryIds.map((m) => m.id)).toEqual(rows.map((r) => r.memory_id));
    store.close();
  });

  it('writes every field it is given, and the documented default for every field it is not', async () => {
    const store = await createTestStore();
    const [full, bare] = store.write((sql) =>
      createMemories(
        sql,
        deps(),
        [
          memory('a', 'Full memory.', {
            type: 'decision',
            importance: 0.9,
            confidence: 0.4,
            project: 'kestrel',
            category: 'planning',
            source: { type: 'transcript', id: 's1' },
            tags: ['x', 'y'],
            who: 'dana',
            why: 'asked twice',
            linkedEntities: [{ type: 'contact', refId: '7' }],
            pinned: true,
            expiresAt: NOW + 1000,
            createdAt: NOW - 5000,
          }),
          memory('a', 'Bare memory.'),
        ],
        NOW,
      ),
    );
    const rowOf = (id: string) => store.read((sql) => findMemory(sql, 'a', id));
    expect(rowOf(full?.id ?? '')).toMatchObject({
      type: 'decision',
      importance: 0.9,
      confidence: 0.4,
      project: 'kestrel',
      category: 'planning',
      source_type: 'transcript',
      source_id: 's1',
      tags: '["x","y"]',
      who: 'dana',
      why: 'asked twice',
      linked_entities: '[{"type":"contact","refId":"7"}]',
      pinned: 1,
      expires_at: NOW + 1000,
      created_at: NOW - 5000,
      updated_at: NOW,
    });
    expect(rowOf(bare?.id ?? '')).toMatchObject({
      confidence: 1,
      project: null,
      category: null,
      source_type: null,
      source_id: null,
      tags: '[]',
      who: null,
      why: null,
      linked_entities: '[]',
      pinned: 0,
      expires_at: null,
      embedding_model: null,
      created_at: NOW,
    });
  });

  it('records the creation in history with the type and source, and tells the host the content is live', async () => {
    const store = await createTestStore();
    const causes: Array<[string, ContentCause]> = [];
    const writer = deps(causes);
    const [created, again] = store.write((sql) =>
      createMemories(
        sql,
        writer,
        [memory('a', 'Sourced memory.', { source: { type: 'transcript', id: 's1' } }), memory('a', 'Sourced memory.')],
        NOW,
      ),
    );
    expect(again).toEqual({ id: created?.id, deduped: true });
    expect(causes).toEqual([[created?.id, 'created']]);
    const history = store.read((sql) => listHistory(sql, 'a', created?.id ?? ''));
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ event: 'created', new_content: 'Sourced memory.', old_content: null });
    expect(JSON.parse(history[0]?.metadata ?? '{}')).toEqual({
      type: 'fact',
      source: { type: 'transcript', id: 's1' },
    });
    const [plain] = store.write((sql) => createMemories(sql, writer, [memory('a', 'Unsourced memory.')], NOW));
    const plainHistory = store.read((sql) => listHistory(sql, 'a', plain?.id ?? ''));
    expect(JSON.parse(plainHistory[0]?.metadata ?? '{}')).toEqual({ type: 'fact' });
  });

  it('refuses to report a refused insert as a duplicate when no live duplicate exists', async () => {
    const store = await createTestStore();
    // Something other than the dedup index refuses the row (here a trigger): the writer must not
    // invent an id or a dedup, it fails the write.
    store.database.exec(
      'CREATE TEMP TRIGGER refuse_memories BEFORE INSERT ON memories BEGIN SELECT RAISE(IGNORE); END',
    );
    let thrown: unknown;
    try {
      store.write((sql) => createMemories(sql, deps(), [memory('a', 'Refused memory.')], NOW));
    } catch (error) {
      thrown = error;
    }
    expect(isMemoryError(thrown, 'STORAGE_ERROR')).toBe(true);
    expect(thrown).toMatchObject({
      message: 'a memory insert was refused without a live duplicate',
      details: { agentId: 'a' },
    });
    expect(store.read((sql) => sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM memory_history')))?.n).toBe(0);
  });
});

describe('insertMemory defaults and the cold copy', () => {
  it('fills the defaults for optional columns a caller leaves out', async () => {
    const store = await createTestStore();
    const content = prepareContent('Direct row.');
    // The row type asks for every column; the statement still defaults them for a looser caller.
    const partial = (row: Record<string, unknown>) => row as unknown as Parameters<typeof insertMemory>[1];
    store.write((sql) =>
      insertMemory(
        sql,
        partial({
          id: 'direct',
          agent_id: 'a',
          type: 'fact',
          content: content.content,
          normalized_content: content.normalized,
          content_hash: content.hash,
          created_at: NOW,
          updated_at: NOW,
        }),
      ),
    );
    expect(store.read((sql) => findMemory(sql, 'a', 'direct'))).toMatchObject({
      confidence: 1,
      importance: 0.5,
      category: null,
      tags: '[]',
      why: null,
      linked_entities: '[]',
      expires_at: null,
      pinned: 0,
    });
  });

  it('keeps a lossless copy of the row before its content is replaced', async () => {
    const store = await createTestStore();
    const writer = deps();
    const [created] = store.write((sql) =>
      createMemories(sql, writer, [memory('a', 'Before the change.', { tags: ['t'] })], NOW),
    );
    const before = store.read((sql) => findMemory(sql, 'a', created?.id ?? ''));
    store.write((sql) =>
      changeMemory(
        sql,
        writer,
        { agentId: 'a', id: created?.id ?? '', content: prepareContent('After the change.'), audit: { reason: 'fix' } },
        NOW + 1,
      ),
    );
    const cold = store.read((sql) =>
      sql.all<{ agent_id: string; row_json: string; reason: string }>(
        raw('SELECT agent_id, row_json, reason FROM memories_cold'),
      ),
    );
    expect(cold).toHaveLength(1);
    expect(cold[0]).toMatchObject({ agent_id: 'a', reason: 'fix' });
    expect(JSON.parse(cold[0]?.row_json ?? '{}')).toEqual(before);
  });
});
