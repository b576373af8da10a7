import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryEngine, type MemoryEngine, type RememberManyMemory } from '@memory/engine';
import { afterEach, describe, expect, it } from 'vitest';
import { createBagOfWordsEmbedder, createTestEngine } from './helpers.js';

// rememberMany's conflict detection finds what an item may update by the rule's key (one index
// refresh per batch) instead of a vector search per item: these tests hold it to the outcomes of
// remembering the same items one by one, and keep the index current across other writes.

const ITEMS: RememberManyMemory[] = [
  { content: 'The weekly standup is at 9:30 on Monday', type: 'decision' },
  { content: 'Alice prefers green tea in the morning', type: 'preference' },
  { content: 'Invoices go out on the first business day', type: 'decision' },
  { content: 'The weekly standup is at 10:00 on Tuesday', type: 'decision' },
  { content: 'Bob prefers green tea in the morning', type: 'preference' },
  { content: 'Alice prefers black coffee in the morning', type: 'preference' },
  // The stored memory's content again, as a fact: one by one a duplicate of it, before the next item updates it.
  { content: 'The deploy freeze starts at 16:00 on Friday', type: 'fact' },
  { content: 'The deploy freeze starts at 17:00 on Friday', type: 'decision' },
  { content: 'The weekly standup is at 10:00 on Tuesday', type: 'decision' },
  { content: 'Budget for Atlas is 40k', type: 'fact' },
  { content: 'Budget for Atlas is 45k', type: 'fact' },
  { content: 'The deploy freeze starts at 18:00 on Friday', type: 'decision', conflict: false },
  { content: 'Room 101 is the quiet room', type: 'decision' },
  { content: 'Room 102 is the quiet room', type: 'decision' },
  { content: 'The weekly standup is at 11:00 on Wednesday', type: 'decision' },
  { content: 'The lunch order goes in at 11:30 on Friday', type: 'decision', pinned: true },
  { content: 'The lunch order goes in at 12:00 on Friday', type: 'decision' },
  { content: 'The deploy freeze starts at 19:00 on Friday', type: 'decision' },
  { content: 'Dana moved to Porto last year', type: 'preference' },
  { content: 'Dana moved from Porto last year', type: 'preference' },
  { content: 'The weekly standup is at 9:30 on Monday', type: 'decision' },
  { content: 'Preferred contact time is 9am', type: 'preference', linkedEntities: [{ type: 'contact', refId: '1' }] },
  { content: 'Preferred contact time is 10am', type: 'preference', linkedEntities: [{ type: 'contact', refId: '2' }] },
  { content: 'Preferred contact time is 11am', type: 'preference', linkedEntities: [{ type: 'contact', refId: '1' }] },
];

const engines: MemoryEngine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

async function engine(batchSize = 100): Promise<MemoryEngine> {
  const { engine: e } = await createTestEngine({
    embedder: createBagOfWordsEmbedder(256),
    config: { remember: { batchSize, conflict: { threshold: 0.5 } } },
  });
  engines.push(e);
  return e;
}

/** What the scope ends as: per input its memory (by first appearance), merged or not, and each memory's history. */
async function outcome(e: MemoryEngine, results: ReadonlyArray<{ id: string; updated?: true; previous?: string }>) {
  const order = new Map<string, number>();
  for (const r of results) if (!order.has(r.id)) order.set(r.id, order.size);
  const perItem = results.map((r) => ({ memory: order.get(r.id), updated: r.updated ?? false, previous: r.previous }));
  const memories = [];
  for (const id of order.keys()) {
    const memory = await e.getMemory({ agentId: 'a', id });
    const history = (await e.history({ agentId: 'a', id })).map((h) => ({
      event: h.event,
      oldContent: h.oldContent,
      newContent: h.newContent,
      reason: h.reason,
    }));
    memories.push({ content: memory?.content, history });
  }
  const merged = (await e.health({ agentId: 'a' })).last30Days.conflictsMerged;
  return { perItem, memories, merged };
}

describe('conflict detection in bulk', () => {
  it('gives the same merges, contents and history rows as remembering the items one by one', async () => {
    const single = await engine();
    await single.remember({ agentId: 'a', content: 'The deploy freeze starts at 16:00 on Friday', type: 'decision' });
    const one: Array<{ id: string; updated?: true; previous?: string }> = [];
    for (const item of ITEMS) one.push(await single.remember({ agentId: 'a', ...item }));
    const expected = await outcome(single, one);
    // The rule merged what it should: the standup chain, the freeze chain (not the opted-out item),
    // the contact time on the same link; nothing across subjects, directions, identifiers or kinds.
    // The fact repeating the stored freeze is its duplicate (memory 5) before the freeze moves.
    expect(expected.perItem[6]).toEqual({ memory: 5, updated: false, previous: undefined });
    expect(expected.merged).toBe(6);
    expect(expected.perItem.flatMap((r, i) => (r.updated ? [[i, r.memory]] : []))).toEqual([
      [3, 0],
      [7, 5],
      [14, 0],
      [17, 5],
      [20, 0],
      [23, 15],
    ]);

    // One batch, batches of 4 (stored and in-batch matches both in play), and batches of 1.
    for (const batchSize of [100, 4, 1]) {
      const bulk = await engine(batchSize);
      await bulk.remember({ agentId: 'a', content: 'The deploy freeze starts at 16:00 on Friday', type: 'decision' });
      const many = await bulk.rememberMany({ agentId: 'a', memories: [...ITEMS] });
      expect(await outcome(bulk, many), `batchSize ${batchSize}`).toEqual(expected);
    }
  });

  it('follows content changed by modify, and memories another connection wrote, once its index is built', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'memory-conflict-keys-'));
    try {
      const open = async () => {
        const e = await createMemoryEngine({
          database: { path: join(dir, 'memory.db') },
          embedder: createBagOfWordsEmbedder(256),
          config: { remember: { conflict: { threshold: 0.5 } } },
        });
        engines.push(e);
        return e;
      };
      const first = await open();
      const standup = await first.remember({
        agentId: 'a',
        content: 'The weekly standup is at 9:30 on Monday',
        type: 'decision',
      });
      // modify gives it a text of another key: an update of the old text no longer finds it, one of the new text does.
      await first.modify({
        agentId: 'a',
        id: standup.id,
        content: 'The weekly retro is at 15:00 on Friday',
        reason: 'moved',
      });
      const old = await first.rememberMany({
        agentId: 'a',
        memories: [{ content: 'The weekly standup is at 10:00 on Tuesday', type: 'decision' }],
      });
      expect(old[0]?.id).not.toBe(standup.id);
      const retro = await first.rememberMany({
        agentId: 'a',
        memories: [{ content: 'The weekly retro is at 16:00 on Friday', type: 'decision' }],
      });
      expect(retro[0]).toMatchObject({
        id: standup.id,
        updated: true,
        previous: 'The weekly retro is at 15:00 on Friday',
      });

      // Another connection to the file stores a memory; this engine's index (already built) finds it.
      const second = await open();
      const invoices = await second.remember({
        agentId: 'a',
        content: 'Invoices go out at 8:00 on the first business day',
        type: 'decision',
      });
      const update = await first.rememberMany({
        agentId: 'a',
        memories: [{ content: 'Invoices go out at 9:00 on the first business day', type: 'decision' }],
      });
      expect(update[0]).toMatchObject({ id: invoices.id, updated: true });
      expect((await first.getMemory({ agentId: 'a', id: invoices.id }))?.content).toBe(
        'Invoices go out at 9:00 on the first business day',
      );
      // ...and content that connection changes in place.
      await second.modify({
        agentId: 'a',
        id: invoices.id,
        content: 'Payroll runs at 8:00 on the last business day',
        reason: 'replaced',
      });
      const payroll = await first.rememberMany({
        agentId: 'a',
        memories: [{ content: 'Payroll runs at 9:00 on the last business day', type: 'decision' }],
      });
      expect(payroll[0]).toMatchObject({ id: invoices.id, updated: true });
      // ...also when this engine never touched that memory since its index took it: the other
      // connection's change is found in memory_history, not by rebuilding the index.
      await second.modify({
        agentId: 'a',
        id: standup.id,
        content: 'The board meeting is at 14:00 on Thursday',
        reason: 'replaced',
      });
      const board = await first.rememberMany({
        agentId: 'a',
        memories: [{ content: 'The board meeting is at 11:00 on Thursday', type: 'decision' }],
      });
      expect(board[0]).toMatchObject({ id: standup.id, updated: true });
    } finally {
      for (const e of engines.splice(0)) await e.close();
      rmSync(dir, { recursive: true, force: true, maxRetries: 5 });
    }
  });
});
