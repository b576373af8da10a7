import { describe, expect, it } from 'vitest';
import { prepareContent } from '../src/index.js';
import { deleteHints, insertHints, listHints } from '../src/repositories/hints.js';
import { createTestStore, insertMemory } from '../src/testing.js';

async function storeWithMemory() {
  const store = await createTestStore();
  const c = prepareContent('The review moved to Thursday.');
  store.write((sql) =>
    insertMemory(sql, {
      id: 'm1',
      agent_id: 'a',
      type: 'fact',
      content: c.content,
      normalized_content: c.normalized,
      content_hash: c.hash,
      confidence: 1,
      importance: 0.5,
      tags: '[]',
      linked_entities: '[]',
      pinned: 0,
      created_at: 0,
      updated_at: 0,
    }),
  );
  return store;
}

// A memory's prospective hints, per agent scope: listed oldest first, duplicates ignored, and
// neither listed nor deleted through another agent's scope.

describe('hints repository', () => {
  it('lists a memory’s hints oldest first, without duplicates, in its own scope only', async () => {
    const store = await storeWithMemory();
    store.write((sql) => {
      expect(insertHints(sql, 'a', 'm1', ['when is the review', 'who approves the budget'], 0)).toBe(2);
      expect(insertHints(sql, 'a', 'm1', ['when is the review', 'what was decided'], 1)).toBe(1);
      insertHints(sql, 'b', 'm1', ['another scope asks this'], 2);
    });
    expect(store.read((sql) => listHints(sql, 'a', 'm1'))).toEqual([
      'when is the review',
      'who approves the budget',
      'what was decided',
    ]);
    expect(store.read((sql) => listHints(sql, 'b', 'm1'))).toEqual(['another scope asks this']);
    expect(store.read((sql) => listHints(sql, 'c', 'm1'))).toEqual([]);
  });

  it('deletes a memory’s hints in one scope and leaves the other scope’s', async () => {
    const store = await storeWithMemory();
    store.write((sql) => {
      insertHints(sql, 'a', 'm1', ['one', 'two'], 0);
      insertHints(sql, 'b', 'm1', ['three'], 0);
    });
    expect(store.write((sql) => deleteHints(sql, 'a', 'm1'))).toBe(2);
    expect(store.read((sql) => listHints(sql, 'a', 'm1'))).toEqual([]);
    expect(store.read((sql) => listHints(sql, 'b', 'm1'))).toEqual(['three']);
  });
});
