import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchMemoriesLexical } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { textTerms } from '../src/text-terms.js';

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

// The reference: Okapi BM25 (k1 1.2, b 0.75) computed here from the agent's live rows alone, then
// filtered and ordered by score then seq; the scoped index and the chunked reads must equal it.
function reference(
  store: Awaited<ReturnType<typeof createTestStore>>,
  agent: string,
  tokens: readonly string[],
  limit: number,
  type?: string,
  tag?: string,
) {
  const rows = store.read((sql) =>
    sql.all<{ id: string; seq: number; content: string; type: string; tags: string }>(
      raw('SELECT id, seq, content, type, tags FROM memories WHERE agent_id = ? AND is_deleted = 0', agent),
    ),
  );
  const docs = rows.map((r) => ({ ...r, terms: textTerms(r.content) }));
  const avgdl = Math.max(1, docs.reduce((n, d) => n + d.terms.length, 0) / Math.max(1, docs.length));
  const query = [...new Set(tokens.map((t) => textTerms(t).counts.keys().next().value as string))];
  const scored = docs
    .map((d) => {
      let score = 0;
      for (const term of query) {
        const tf = d.terms.counts.get(term) ?? 0;
        if (tf === 0) continue;
        const df = docs.filter((x) => x.terms.counts.has(term)).length;
        const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
        score += (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * d.terms.length) / avgdl));
      }
      return { ...d, score };
    })
    .filter((d) => d.score > 0)
    .filter((d) => (type === undefined || d.type === type) && (tag === undefined || JSON.parse(d.tags).includes(tag)));
  scored.sort((a, b) => b.score - a.score || a.seq - b.seq);
  return scored.slice(0, limit).map((d) => d.id);
}

describe('scoped lexical search', () => {
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
    // The noise agent's 300 rows change nothing: the same scores as in a file of the agent's rows alone.
    const alone = await storeWith(rows.slice(300));
    const aloneHits = alone.read((sql) =>
      searchMemoriesLexical(sql, {
        agentId: 'a',
        terms: { tokens: ['lantern'] },
        matching: 'any',
        filters: {},
        now: 0,
        limit: 10,
      }),
    );
    expect(aloneHits.map((h) => [h.content, h.bm25])).toEqual(hits.map((h) => [h.content, h.bm25]));
  });

  it('returns exactly the filtered BM25 ranking over the agent’s own rows (property)', async () => {
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
        async (rows, queryWords, limit, type, tag) => {
          const store = await storeWith(rows);
          const tokens = [...new Set(queryWords.map((w) => WORDS[w] ?? ''))];
          const got = store.read((sql) =>
            searchMemoriesLexical(sql, {
              agentId: 'a',
              terms: { tokens },
              matching: 'any',
              filters: { types: type ? [type as 'fact'] : undefined, tags: tag ? [tag] : undefined },
              now: 0,
              limit,
            }),
          );
          expect(got.map((h) => h.id)).toEqual(reference(store, 'a', tokens, limit, type, tag));
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
