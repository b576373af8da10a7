import { createManualClock, createSequentialIds } from '@memory/core';
import { createMemories, type MemoryWriteDeps, prepareContent, type Store } from '@memory/store';
import { raw } from '@memory/store/sql';
import { createTestStore } from '@memory/store/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictKeyIndex, keyHash } from '../src/conflict-keys.js';
import { rememberMany } from '../src/remember.js';
import type { MemoryWriter } from '../src/writer.js';
import { bagOfWords } from './support/bag-of-words.js';
import { T0, writerOver } from './support/memory-core-backends.js';

// The key index takes the memories a rememberMany batch created without reading them back
// (`ConflictKeyIndex.settle`: the `memories` top row before and after the batch's inserts). These
// tests hold every row it did not write to being found all the same: rows another path inserted on
// the connection (as imports do, without the writer's hook) before or during a batch, a seq reused
// after the top row was purged (another scope's, or the scope's own: then the engine's purge tells
// the index), and a batch that rolled back (its rows are no candidates).

const TYPES = ['decision', 'preference', 'fact'] as const;

/** An index that runs `between` after each refresh, i.e. between a batch's refresh and its transaction. */
class InterruptedIndex extends ConflictKeyIndex {
  between: (() => void) | undefined;
  override async refreshAll(...args: Parameters<ConflictKeyIndex['refreshAll']>): Promise<void> {
    await super.refreshAll(...args);
    const between = this.between;
    this.between = undefined;
    between?.();
  }
}

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

async function setup(onContentLive?: MemoryWriter['onContentLive']) {
  const clock = createManualClock(T0);
  const store = await createTestStore({ clock, ids: createSequentialIds('m'), vectorExtension: 'off' });
  stores.push(store);
  const index = new InterruptedIndex();
  const writer: MemoryWriter = {
    ...writerOver(store, { embedder: bagOfWords(), config: { remember: { conflict: { threshold: 0.5 } } } }),
    conflictKeys: index,
    onContentLive,
  };
  /** Rows the key index's reads of memories returned (its catch-up by seq, and by id). */
  const read = { rows: 0 };
  const plainRead = store.read.bind(store);
  store.read = ((fn: Parameters<Store['read']>[0]) => {
    const result = plainRead(fn);
    if (Array.isArray(result)) read.rows += result.length;
    return result;
  }) as Store['read'];
  return { store, writer, index, read };
}

/** Ids of the other path's memories (unique across a test's store). */
const otherIds = createSequentialIds('other');

async function vectorOf(content: string): Promise<Float32Array> {
  const [vector] = await bagOfWords().embed([content]);
  return vector as Float32Array;
}

/** Inserts a decision the way another path does: through the store writer, without the engine's hook. */
function insertElsewhere(
  writer: MemoryWriter,
  content: string,
  vector: Float32Array,
  agentId = 'a',
): { id: string; seq: number } {
  const deps: MemoryWriteDeps = { ids: otherIds, vectorAvailable: false, inlineEntityLinking: false };
  const memory = {
    agentId,
    content: prepareContent(content),
    type: 'decision' as const,
    importance: 0.5,
    embedding: { model: 'bow', vector },
    audit: {},
  };
  const [created] = writer.store.write((sql) => createMemories(sql, deps, [memory], T0));
  const id = created?.id as string;
  const row = writer.store.read((sql) => sql.get<{ seq: number }>(raw('SELECT seq FROM memories WHERE id = ?', id)));
  return { id, seq: row?.seq ?? -1 };
}

async function candidates(writer: MemoryWriter, content: string): Promise<ReadonlyArray<string | undefined>> {
  const index = writer.conflictKeys as ConflictKeyIndex;
  await index.refresh(writer.store, 'a', TYPES);
  // The index holds seqs: its candidates are named by the ids of the rows at them.
  return index
    .candidates('a', keyHash('decision', content, []) as number)
    .map(
      (seq) =>
        writer.store.read((sql) => sql.get<{ id: string }>(raw('SELECT id FROM memories WHERE seq = ?', seq)))?.id,
    );
}

const remember = (writer: MemoryWriter, contents: readonly string[]) =>
  rememberMany(
    writer,
    contents.map((content) => ({ agentId: 'a', content, type: 'decision' })),
  );

describe("the conflict key index's catch-up after rememberMany", () => {
  it("takes a batch's own memories without reading them back, and merges into them", async () => {
    const { writer, read } = await setup();
    await remember(writer, ['Invoices go out at 8:00 on Monday']);
    const [standup, retro] = await remember(writer, [
      'The weekly standup is at 9:30 on Monday',
      'The weekly retro is at 15:00 on Friday',
    ]);
    read.rows = 0;
    const [update, other] = await remember(writer, [
      'The weekly standup is at 10:00 on Tuesday',
      'The billing review is at 11:00 on Thursday',
    ]);
    expect(update).toMatchObject({ id: standup?.id, updated: true });
    expect(other?.updated).toBeUndefined();
    // The previous batch's rows were taken from the batch itself: the catch-up read returned none.
    expect(read.rows).toBe(0);
    expect(await candidates(writer, 'The weekly retro is at 16:00 on Friday')).toEqual([retro?.id]);
  });

  it('finds a memory another path inserted between two batches', async () => {
    const { writer } = await setup();
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    const text = 'Invoices go out at 8:00 on the first business day';
    const elsewhere = insertElsewhere(writer, text, await vectorOf(text));
    const [update] = await remember(writer, ['Invoices go out at 9:00 on the first business day']);
    expect(update).toMatchObject({ id: elsewhere.id, updated: true });
  });

  it("finds a memory another path inserted between a batch's refresh and its transaction", async () => {
    const { writer, index } = await setup();
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    const text = 'Invoices go out at 8:00 on the first business day';
    const vector = await vectorOf(text);
    let elsewhere: { id: string; seq: number } | undefined;
    index.between = () => {
      elsewhere = insertElsewhere(writer, text, vector);
    };
    const [created] = await remember(writer, ['The board meeting is at 14:00 on Thursday']);
    expect(created?.updated).toBeUndefined();
    expect(elsewhere).toBeDefined();
    const [update] = await remember(writer, ['Invoices go out at 9:00 on the first business day']);
    expect(update).toMatchObject({ id: elsewhere?.id, updated: true });
  });

  it("finds a memory that took the seq of another scope's top row, purged after the refresh", async () => {
    const { writer, index, store } = await setup();
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    // The top row is another agent's: this scope's index has read up to a lower seq.
    const other = 'Payroll runs at 8:00 on the last business day';
    const top = insertElsewhere(writer, other, await vectorOf(other), 'b');
    const text = 'Invoices go out at 8:00 on the first business day';
    const vector = await vectorOf(text);
    let elsewhere: { id: string; seq: number } | undefined;
    index.between = () => {
      // The top row goes (as a purge removes it) and the next insert, by another path, takes its seq.
      store.write((sql) => sql.run(raw('DELETE FROM memories WHERE id = ?', top.id)));
      elsewhere = insertElsewhere(writer, text, vector);
    };
    await remember(writer, ['The weekly retro is at 15:00 on Friday']);
    expect(elsewhere?.seq).toBe(top.seq);
    const [update] = await remember(writer, ['Invoices go out at 9:00 on the first business day']);
    expect(update).toMatchObject({ id: elsewhere?.id, updated: true });
  });

  it("finds a memory that took the seq of the scope's own top row after a purge", async () => {
    const { writer, index, store } = await setup();
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    const [gone] = await remember(writer, ['Payroll runs at 8:00 on the last business day']);
    const seq = store.read((sql) => sql.get<{ seq: number }>(raw('SELECT seq FROM memories WHERE id = ?', gone?.id)))
      ?.seq as number;
    // The index has read the scope through the top row's seq.
    expect(await candidates(writer, 'Payroll runs at 9:00 on the last business day')).toEqual([gone?.id]);
    // A purge removes the top row (the engine's purge batch then tells the index) and the next
    // insert, by another path, takes its seq: at the seq the index had read to, not past it.
    store.write((sql) => sql.run(raw('DELETE FROM memories WHERE id = ?', gone?.id)));
    index.purged([{ agentId: 'a', seq }]);
    const text = 'Invoices go out at 8:00 on the first business day';
    const elsewhere = insertElsewhere(writer, text, await vectorOf(text));
    expect(elsewhere.seq).toBe(seq);
    const [update] = await remember(writer, ['Invoices go out at 9:00 on the first business day']);
    expect(update).toMatchObject({ id: elsewhere.id, updated: true });
  });

  it("finds a memory another path inserted inside the batch's transaction", async () => {
    const inside: { run?: (() => void) | undefined } = {};
    const { writer } = await setup(() => {
      const run = inside.run;
      inside.run = undefined;
      run?.();
    });
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    const text = 'Invoices go out at 8:00 on the first business day';
    const vector = await vectorOf(text);
    let elsewhere: { id: string; seq: number } | undefined;
    // A hook that writes a memory of its own (a savepoint in the batch's transaction).
    inside.run = () => {
      elsewhere = insertElsewhere(writer, text, vector);
    };
    await remember(writer, ['The board meeting is at 14:00 on Thursday', 'The weekly retro is at 15:00 on Friday']);
    expect(elsewhere).toBeDefined();
    const [update] = await remember(writer, ['Invoices go out at 9:00 on the first business day']);
    expect(update).toMatchObject({ id: elsewhere?.id, updated: true });
  });

  it("never offers a rolled-back batch's memories, and finds the rows that took their seqs", async () => {
    const failing = { on: false };
    const { writer } = await setup(() => {
      if (failing.on) throw new Error('hook failed');
    });
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    failing.on = true;
    await expect(
      remember(writer, [
        'Invoices go out at 8:00 on the first business day',
        'The board meeting is at 14:00 on Thursday',
      ]),
    ).rejects.toThrow();
    failing.on = false;
    expect(await candidates(writer, 'Invoices go out at 9:00 on the first business day')).toEqual([]);
    expect(await candidates(writer, 'The board meeting is at 15:00 on Thursday')).toEqual([]);
    // Another path now writes at the seqs the rolled-back batch had taken.
    const text = 'The board meeting is at 14:00 on Thursday';
    const elsewhere = insertElsewhere(writer, text, await vectorOf(text));
    const [update, fresh] = await remember(writer, [
      'The board meeting is at 15:00 on Thursday',
      'Invoices go out at 9:00 on the first business day',
    ]);
    expect(update).toMatchObject({ id: elsewhere.id, updated: true });
    expect(fresh?.updated).toBeUndefined();
  });

  it('takes created memories at the seqs they were inserted at, and refuses them out of insert order', async () => {
    const { writer, index, store, read } = await setup();
    await remember(writer, ['The weekly standup is at 9:30 on Monday']);
    const top = () =>
      store.read((sql) => sql.get<{ seq: number; id: string }>(raw('SELECT seq, id FROM memories ORDER BY seq DESC')));
    const created = async (contents: readonly string[]) => {
      const rows = [];
      for (const content of contents) rows.push(insertElsewhere(writer, content, await vectorOf(content)));
      return rows.map(({ id }, i) => ({ agentId: 'a', id, hash: keyHash('decision', contents[i] as string, []) }));
    };
    await index.refreshAll(store, ['a'], TYPES);
    let before = top() as { seq: number; id: string };
    const reversed = await created(['Invoices go out at 8:00 on Monday', 'Payroll runs at 8:00 on Friday']);
    expect(index.settle('a', before, top() as { seq: number; id: string }, [...reversed].reverse())).toBe(false);
    // Not taken: the next refresh reads them.
    expect(await candidates(writer, 'Invoices go out at 9:00 on Monday')).toEqual([reversed[0]?.id]);
    expect(await candidates(writer, 'Payroll runs at 9:00 on Friday')).toEqual([reversed[1]?.id]);

    await index.refreshAll(store, ['a'], TYPES);
    before = top() as { seq: number; id: string };
    const inOrder = await created(['The board meeting is at 14:00 on Thursday', 'The retro is at 15:00 on Friday']);
    expect(index.settle('a', before, top() as { seq: number; id: string }, inOrder)).toBe(true);
    read.rows = 0;
    expect(await candidates(writer, 'The board meeting is at 15:00 on Thursday')).toEqual([inOrder[0]?.id]);
    expect(await candidates(writer, 'The retro is at 16:00 on Friday')).toEqual([inOrder[1]?.id]);
    // Taken without reading them back.
    expect(read.rows).toBe(0);
  });

  it('drops purged memories from the index', async () => {
    const { writer, index, store } = await setup();
    const [gone, kept] = await remember(writer, [
      'Payroll runs at 8:00 on the last business day',
      'The weekly standup is at 9:30 on Monday',
    ]);
    const seq = store.read((sql) => sql.get<{ seq: number }>(raw('SELECT seq FROM memories WHERE id = ?', gone?.id)))
      ?.seq as number;
    expect(await candidates(writer, 'Payroll runs at 9:00 on the last business day')).toEqual([gone?.id]);
    store.write((sql) => sql.run(raw('DELETE FROM memories WHERE id = ?', gone?.id)));
    index.purged([{ agentId: 'a', seq }]);
    expect(await candidates(writer, 'Payroll runs at 9:00 on the last business day')).toEqual([]);
    expect(await candidates(writer, 'The weekly standup is at 10:00 on Monday')).toEqual([kept?.id]);
  });
});
