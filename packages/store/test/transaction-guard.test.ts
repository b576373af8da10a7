import { type EmbeddingProvider, isMemoryError, type LlmProvider, TransactionBoundaryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

const embedder: EmbeddingProvider = {
  model: 'toy',
  dimensions: 2,
  embed: async (texts) => texts.map(() => Float32Array.from([1, 0])),
};
const llm: LlmProvider = { generate: async () => ({ text: 'ok' }) };

const entityCount = (store: Awaited<ReturnType<typeof createTestStore>>) =>
  store.read((sql) => sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM entities')))?.n;

const insertEntity = (id: string) =>
  raw(
    "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, 'a', ?, ?, 0, 0)",
    id,
    id,
    id,
  );

describe('transaction boundary guard', () => {
  it('throws TransactionBoundaryError when a wrapped provider is called inside a write, and rolls back', async () => {
    const store = await createTestStore();
    const guarded = store.guard.embedder(embedder);
    expect(() =>
      store.write((sql) => {
        sql.run(insertEntity('e1'));
        void guarded.embed(['hello']);
      }),
    ).toThrow(TransactionBoundaryError);
    expect(entityCount(store)).toBe(0);

    const guardedLlm = store.guard.llm(llm);
    expect(() => store.write(() => void guardedLlm.generate({ messages: [] }))).toThrow(
      expect.objectContaining({ code: 'TRANSACTION_BOUNDARY', details: { provider: 'llm', operation: 'generate' } }),
    );
  });

  it('lets providers run before and after a write, in the same async flow', async () => {
    const store = await createTestStore();
    const guarded = store.guard.embedder(embedder);
    const before = await guarded.embed(['a']);
    store.write((sql) => sql.run(insertEntity('e1')));
    const after = await guarded.embed(['b']);
    expect(before).toHaveLength(1);
    expect(after).toHaveLength(1);
    expect(store.guard.inWriteTransaction()).toBe(false);
  });

  it('guards nested writes (savepoints) too, and a nested failure rolls back only the savepoint when caught', async () => {
    const store = await createTestStore();
    const guarded = store.guard.wrap('fetch', 'get', async (url: string) => url);
    store.write((sql) => {
      sql.run(insertEntity('outer'));
      try {
        store.write((inner) => {
          inner.run(insertEntity('inner'));
          void guarded('http://example.test');
        });
      } catch (error) {
        expect(isMemoryError(error, 'TRANSACTION_BOUNDARY')).toBe(true);
      }
    });
    expect(store.read((sql) => sql.all<{ id: string }>(raw('SELECT id FROM entities ORDER BY id')))).toEqual([
      { id: 'outer' },
    ]);
  });

  it('refuses async write callbacks and rolls back what they did synchronously', async () => {
    const store = await createTestStore();
    expect(() =>
      store.write(((sql: Parameters<Parameters<typeof store.write>[0]>[0]) => {
        sql.run(insertEntity('e1'));
        return Promise.resolve(1);
      }) as never),
    ).toThrow(expect.objectContaining({ code: 'TRANSACTION_BOUNDARY' }));
    expect(entityCount(store)).toBe(0);
  });

  it('keeps two stores independent: one store being in a write does not trip the other', async () => {
    const a = await createTestStore();
    const b = await createTestStore();
    const bEmbedder = b.guard.embedder(embedder);
    let result: Promise<Float32Array[]> | undefined;
    a.write(() => {
      result = bEmbedder.embed(['x']);
    });
    await expect(result).resolves.toHaveLength(1);
  });
});
