import { TransactionBoundaryError } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

// The two checks that keep slow or async work out of write transactions, each tested on its own
// (transaction-guard.test.ts tests them together): (1) a guarded provider refuses to be called
// while the calling context holds a write transaction, before the provider does any work; (2) a
// write callback may not return a promise (or any thenable). Either way the transaction rolls back.

type TestStore = Awaited<ReturnType<typeof createTestStore>>;

const count = (store: TestStore) =>
  store.read((sql) => sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM entities')))?.n;
const insert = (id: string) =>
  raw(
    "INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, 'a', ?, ?, 0, 0)",
    id,
    id,
    id,
  );

describe('check 1: guarded providers refuse calls from inside a write', () => {
  it('the embedder: refused before the inner embedder runs, and the write rolls back', async () => {
    const store = await createTestStore();
    let calls = 0;
    const embedder = store.guard.embedder({
      model: 'm',
      dimensions: 1,
      embed: async (texts) => {
        calls++;
        return texts.map(() => Float32Array.from([1]));
      },
    });
    let thrown: unknown;
    try {
      store.write((sql) => {
        sql.run(insert('e1'));
        void embedder.embed(['x']);
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TransactionBoundaryError);
    expect(thrown).toMatchObject({ details: { provider: 'embedder', operation: 'embed' } });
    expect(calls).toBe(0);
    expect(count(store)).toBe(0);
    // Outside a write the same wrapper calls through.
    await expect(embedder.embed(['x'])).resolves.toHaveLength(1);
    expect(calls).toBe(1);
    expect(embedder).toMatchObject({ model: 'm', dimensions: 1 });
  });

  it('the LLM: refused inside a write, called through outside', async () => {
    const store = await createTestStore();
    let calls = 0;
    const llm = store.guard.llm({
      generate: async () => {
        calls++;
        return { text: 'ok' };
      },
    });
    expect(() => store.write(() => void llm.generate({ messages: [] }))).toThrow(
      expect.objectContaining({ code: 'TRANSACTION_BOUNDARY', details: { provider: 'llm', operation: 'generate' } }),
    );
    expect(calls).toBe(0);
    await expect(llm.generate({ messages: [] })).resolves.toEqual({ text: 'ok' });
    expect(calls).toBe(1);
  });

  it('any wrapped function, inside a nested write too; inWriteTransaction says where the context is', async () => {
    const store = await createTestStore();
    const seen: unknown[][] = [];
    const fetchLike = store.guard.wrap('fetch', 'get', async (...args: unknown[]) => {
      seen.push(args);
      return 'body';
    });
    expect(store.guard.inWriteTransaction()).toBe(false);
    const inside: boolean[] = [];
    expect(() =>
      store.write(() => {
        inside.push(store.guard.inWriteTransaction());
        store.write(() => {
          inside.push(store.guard.inWriteTransaction());
          void fetchLike('https://example.test', 1);
        });
      }),
    ).toThrow(
      expect.objectContaining({ code: 'TRANSACTION_BOUNDARY', details: { provider: 'fetch', operation: 'get' } }),
    );
    expect(inside).toEqual([true, true]);
    expect(store.guard.inWriteTransaction()).toBe(false);
    expect(seen).toEqual([]);
    await expect(fetchLike('https://example.test', 2)).resolves.toBe('body');
    expect(seen).toEqual([['https://example.test', 2]]);
  });

  it('reads are not writes: a provider may be called from a read callback', async () => {
    const store = await createTestStore();
    const fetchLike = store.guard.wrap('fetch', 'get', async () => 'ok');
    const pending = store.read(() => fetchLike());
    await expect(pending).resolves.toBe('ok');
  });
});

describe('check 2: write callbacks must be synchronous', () => {
  it('refuses a thenable that is not a Promise, and rolls back what ran before it', async () => {
    const store = await createTestStore();
    // biome-ignore lint/suspicious/noThenProperty: a thenable that is not a Promise is what this test feeds the check
    const thenable = { then: (resolve: (v: number) => void) => resolve(1) };
    expect(() =>
      store.write(((sql: Parameters<Parameters<TestStore['write']>[0]>[0]) => {
        sql.run(insert('e1'));
        return thenable;
      }) as never),
    ).toThrow(expect.objectContaining({ code: 'TRANSACTION_BOUNDARY', message: expect.stringMatching(/synchronous/) }));
    expect(count(store)).toBe(0);
  });

  it('refuses an async nested write without undoing the outer one when the caller catches it', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      sql.run(insert('outer'));
      expect(() =>
        store.write((async (inner: typeof sql) => {
          inner.run(insert('inner'));
        }) as never),
      ).toThrow(expect.objectContaining({ code: 'TRANSACTION_BOUNDARY' }));
    });
    expect(store.read((sql) => sql.all<{ id: string }>(raw('SELECT id FROM entities')))).toEqual([{ id: 'outer' }]);
  });

  it('accepts synchronous results, including null and objects whose `then` is not a function', async () => {
    const store = await createTestStore();
    expect(store.write(() => null)).toBeNull();
    expect(store.write(() => undefined)).toBeUndefined();
    // biome-ignore lint/suspicious/noThenProperty: a `then` that is not a function does not make a promise
    const notThenable = { then: 'not callable' };
    expect(store.write(() => notThenable)).toBe(notThenable);
    expect(
      store.write((sql) => {
        sql.run(insert('kept'));
        return 42;
      }),
    ).toBe(42);
    expect(count(store)).toBe(1);
  });

  it('a write inside a transaction the host opened on the same connection becomes a savepoint', async () => {
    const store = await createTestStore();
    store.database.exec('BEGIN');
    store.write((sql) => sql.run(insert('in-host-tx')));
    expect(store.database.inTransaction).toBe(true);
    store.database.exec('ROLLBACK');
    expect(count(store)).toBe(0);
  });
});
