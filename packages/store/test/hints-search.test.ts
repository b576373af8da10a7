// @ts-nocheck
import { describe, expect, it } from 'vitest';
import { insertHints, rankScopedText, searchHints } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

describe('hint search', () => {
  it('one row per memory with its best hint; ties by memory id; at most `limit`; nothing without a match', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      for (const [id, agent] of [
        ['m-a', 'a'],
        ['m-b', 'a'],
        ['m-c', 'a'],
        ['m-d', 'a'],
        ['m-e', 'b'],
      ])
        sql.run(
          raw(
            `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
             VALUES (?, ?, 'fact', ?, ?, ?, 0, 0)`,
            id,
            agent,
            `memory ${id}`,
            `memory ${id}`,
            `h-${id}`,
          ),
        );
      // m-b's first hint ties m-a's only hint; its second hint is worse and must not replace it.
      insertHints(sql, 'a', 'm-b', ['okapi', 'okapi march dana atlas quartz'], 0);
      insertHints(sql, 'a', 'm-a', ['okapi'], 0);
      insertHints(sql, 'a', 'm-c', ['okapi garden'], 0);
      insertHints(sql, 'a', 'm-d', ['tea garden'], 0);
      insertHints(sql, 'b', 'm-e', ['okapi'], 0);
    });
    const ranked = store.read((sql) => rankScopedText(sql, 'hint', 'a', ['okapi'])).rows;
    const score = (row: number) => ranked.find((r) => r.row === row)?.score as number;
    // Hint rows: 1 and 2 (m-b), 3 (m-a), 4 (m-c).
    const search = (tokens: string[], limit: number) => store.read((sql) => searchHints(sql, 'a', { tokens }, limit));
    expect(search(['okapi'], 10)).toEqual([
      { memoryId: 'm-a', bm25: -score(3) },
      { memoryId: 'm-b', bm25: -score(1) },
      { memoryId: 'm-c', bm25: -score(4) },
    ]);
    expect(score(1)).toBe(score(3));
    expect(score(2)).toBeLessThan(score(1));
    expect(search(['okapi'], 1)).toEqual([{ memoryId: 'm-a', bm25: -score(3) }]);
    expect(search(['okapi'], 2).map((h) => h.memoryId)).toEqual(['m-a', 'm-b']);
    expect(search(['zebra'], 10)).toEqual([]);
    expect(search([], 10)).toEqual([]);
    store.close();
  });

  it('orders any number of tied memories by id, whatever order their hints were written in', async () => {
    for (const written of [
      ['m-4', 'm-3', 'm-2', 'm-1'],
      ['m-2', 'm-4', 'm-1', 'm-3'],
      ['m-3', 'm-1', 'm-4', 'm-2'],
    ]) {
      const store = await createTestStore();
      store.write((sql) => {
        for (const id of written) {
          sql.run(
            raw(
              `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
               VALUES (?, 'a', 'fact', ?, ?, ?, 0, 0)`,
              id,
              `memory ${id}`,
              `memory ${id}`,
              `h-${id}`,
            ),
          );
          insertHints(sql, 'a', id, ['okapi'], 0);
        }
      });
      const hits = store.read((sql) => searchHints(sql, 'a', { tokens: ['okapi'] }, 10));
      expect(new Set(hits.map((h) => h.bm25)).size).toBe(1);
      expect(hits.map((h) => h.memoryId)).toEqual(['m-1', 'm-2', 'm-3', 'm-4']);
      store.close();
    }
  });
});
