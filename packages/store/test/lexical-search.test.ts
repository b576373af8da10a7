import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildFtsMatch } from '../src/fts-query.js';
import { searchMemoriesLexical } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

const WORDS = ['lantern', 'harbor', 'copper', 'violet', 'meadow', 'signal', 'ember', 'quartz'];

async function storeWith(
  rows: Array<{ agent: string; words: number[]; type: string; created: number; tags: string[] }>,
) {
  const store = await createTestStore();
  store.write((sql) => {
    rows.forEach((r, i) => {
      const content = r.words.map((w) => WORDS[w % WORDS.length]).join(' ');
      sql.run(
        raw(
          `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, tags, created_at, updated_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          `m${i}`,
          r.agent,
          r.type,
          content,
          content,
          `h${i}`,
          JSON.stringify(r.tags),
          r.created,
          r.created,
        ),
      );
    });
  });
  return store;
}

// The reference: the plain filtered join over every match, which the two-phase search must equal.
function reference(
  store: Awaited<ReturnType<typeof createTestStore>>,
  agent: string,
  match: string,
  limit: number,
  type?: string,
  tag?: string,
) {
  return store
    .read((sql) =>
      sql.all<{ id: string }>(
        raw(
          `SELECT m.id FROM memories_fts JOIN memories m ON m.seq = memories_fts.rowid
           WHERE memories_fts MATCH ? AND m.agent_id = ? AND m.is_deleted = 0
             AND (? IS NULL OR m.type = ?) AND (? IS NULL OR EXISTS (SELECT 1 FROM json_each(m.tags) WHERE value = ?))
           ORDER BY bm25(memories_fts), m.seq LIMIT ?`,
          match,
          agent,
          type ?? null,
          type ?? null,
          tag ?? null,
          tag ?? null,
          limit,
        ),
      ),
    )
    .map((r) => r.id);
}

describe('two-phase lexical search', () => {
  it('finds an agent’s matches even when other agents fill the top of the FTS ranking', async () => {
    const rows = [
      ...Array.from({ length: 300 }, () => ({ agent: 'noise', words: [0, 0, 0], type: 'fact', created: 0, tags: [] })),
      ...Array.from({ length: 3 }, (_, i) => ({
        agent: 'a',
        words: [0, 1, 2, 3, 4 + i],
        type: 'fact',
        created: 0,
        tags: [],
      })),
    ];
    const store = await storeWith(rows);
    const hits = store.read((sql) =>
      searchMemoriesLexical(sql, {
        agentId: 'a',
        terms: { tokens: ['lantern'] },
        matching: 'any',
        filters: {},
        now: 0,
        limit: 10,
      }),
    );
    expect(hits.map((h) => h.id).sort()).toEqual(['m300', 'm301', 'm302']);
    const unscoped = store.read((sql) =>
      searchMemoriesLexical(sql, {
        agentId: 'a',
        terms: { tokens: ['lantern'] },
        matching: 'any',
        filters: {},
        now: 0,
        limit: 10,
        scoped: false,
      }),
    );
    expect(unscoped.map((h) => h.id).sort()).toEqual(['m300', 'm301', 'm302']);
  });

  it('returns exactly what the full filtered query returns (property)', async () => {
    const row = fc.record({
      agent: fc.constantFrom('a', 'b', 'b', 'b', 'c', 'c'),
      words: fc.array(fc.nat(7), { minLength: 1, maxLength: 6 }),
      type: fc.constantFrom('fact', 'decision'),
      created: fc.nat(10),
      tags: fc.subarray(['x', 'y']),
    });
    await fc.assert(
      fc.asyncProperty(
        // size 'max': fast-check otherwise keeps arrays near 10 rows, too few to exercise the fallback.
        fc.array(row, { minLength: 1, maxLength: 300, size: 'max' }),
        fc.array(fc.nat(7), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 12 }),
        fc.option(fc.constantFrom('fact', 'decision'), { nil: undefined }),
        fc.option(fc.constantFrom('x', 'y'), { nil: undefined }),
        fc.boolean(),
        async (rows, queryWords, limit, type, tag, scoped) => {
          const store = await storeWith(rows);
          const tokens = [...new Set(queryWords.map((w) => WORDS[w] ?? ''))];
          const match = buildFtsMatch(tokens, 'OR') ?? '';
          const got = store.read((sql) =>
            searchMemoriesLexical(sql, {
              agentId: 'a',
              terms: { tokens },
              matching: 'any',
              filters: { types: type ? [type as 'fact'] : undefined, tags: tag ? [tag] : undefined },
              now: 0,
              limit,
              scoped,
            }),
          );
          // Same answer whether phase 1 ranks inside the agent's FTS scope or over the whole index.
          expect(got.map((h) => h.id)).toEqual(reference(store, 'a', match, limit, type, tag));
          store.close();
        },
      ),
      // No shrinking: each run builds a database, and shrinking 300-row cases took minutes.
      { numRuns: 60, endOnFailure: true },
    );
  });
});

describe('lexical search plan', () => {
  it('reads phase-1 rows by primary key, never by scanning the agent’s memories', async () => {
    const { ROWS_FOR_ROWIDS } = await import('../src/repositories/lexical-search.js');
    const { memoryFilterParams } = await import('../src/repositories/memory-filters.js');
    const store = await createTestStore();
    const plan = store.database
      .prepare(`EXPLAIN QUERY PLAN ${ROWS_FOR_ROWIDS}`)
      .all('[]', ...memoryFilterParams('a', 0, {})) as Array<{ detail: string }>;
    const details = plan.map((p) => p.detail);
    expect(details[0]).toMatch(/^SCAN top VIRTUAL TABLE/);
    expect(details).toContainEqual(expect.stringMatching(/SEARCH m USING INTEGER PRIMARY KEY/));
  });
});

describe('recall write plans', () => {
  it('records accesses by primary-key lookups, never by scanning memories', async () => {
    const { RECORD_ACCESS } = await import('../src/repositories/recall-reads.js');
    const store = await createTestStore();
    const plan = store.database.prepare(`EXPLAIN QUERY PLAN ${RECORD_ACCESS}`).all(1, 0, 'm', 'a') as Array<{
      detail: string;
    }>;
    expect(plan.map((p) => p.detail)).toEqual([
      expect.stringMatching(/^SEARCH memories USING INDEX sqlite_autoindex_memories_1 \(id=\?\)/),
    ]);
  });
});
