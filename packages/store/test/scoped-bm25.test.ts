// @ts-nocheck
import { createSequentialIds } from '@memory/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMemories, insertNote, prepareContent, rankScopedText, searchMemoriesLexical } from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { queryIndexTerms, textTerms } from '../src/text-terms.js';

// The scoped text index's numbers, checked against an Okapi BM25 computed here from one agent's
// live rows alone (k1 1.2, b 0.75, FTS5's idf ln(1 + (N - df + 0.5) / (df + 0.5)), average length
// at least 1): scores, the matched-term counts, the order (score, then row), depth, `all` and a
// chosen row set. The other property tests compare two rankings of the store with each other, which
// a formula changed in both places passes; these compare with the formula.

type Store = Awaited<ReturnType<typeof createTestStore>>;

const K1 = 1.2;
const B = 0.75;

interface Ref {
  row: number;
  score: number;
  matched: number;
}

/** BM25 of agent `agent`'s live memories for `tokens`, best first (score, then row). */
function reference(store: Store, agent: string, tokens: readonly string[], matching: 'any' | 'all' = 'any'): Ref[] {
  const live = store.read((sql) =>
    sql.all<{ seq: number; content: string }>(
      raw('SELECT seq, content FROM memories WHERE agent_id = ? AND is_deleted = 0', agent),
    ),
  );
  const docs = live.map((r) => ({ row: r.seq, terms: textTerms(r.content) }));
  const n = docs.length;
  const avgdl = Math.max(1, docs.reduce((s, d) => s + d.terms.length, 0) / Math.max(1, n));
  const dfOf = (term: string) => docs.filter((x) => x.terms.counts.has(term)).length;
  // Rarest term first (ties by term), the order the index sums in: the same double to the last bit.
  const query = queryIndexTerms(tokens).sort((x, y) => dfOf(x) - dfOf(y) || (x < y ? -1 : 1));
  const out: Ref[] = [];
  for (const d of docs) {
    let score = 0;
    let matched = 0;
    for (const term of query) {
      const tf = d.terms.counts.get(term) ?? 0;
      if (tf === 0) continue;
      const df = dfOf(term);
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.terms.length) / avgdl));
      matched++;
    }
    if (matched === 0 || (matching === 'all' && matched < query.length)) continue;
    out.push({ row: d.row, score, matched });
  }
  return out.sort((a, b) => b.score - a.score || a.row - b.row);
}

/** `got` equals `want` row for row: same rows, order and matched counts; scores to 1e-9. */
function expectSameRanking(got: readonly Ref[], want: readonly Ref[]) {
  expect(got.map((r) => [r.row, r.matched])).toEqual(want.map((r) => [r.row, r.matched]));
  for (const [i, r] of got.entries()) expect(r.score).toBeCloseTo(want[i]?.score as number, 9);
}

function insertRaw(store: Store, rows: Array<{ agent: string; text: string }>, from = 0) {
  store.write((sql) => {
    for (const [i, r] of rows.entries())
      sql.run(
        raw(
          `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
           VALUES (?, ?, 'fact', ?, ?, ?, 0, 0)`,
          `m${from + i}`,
          r.agent,
          r.text,
          r.text,
          `h${from + i}`,
        ),
      );
  });
}

/** Wraps the executor `fn` gets and records every postings read: the term, and the rows asked for (null: all). */
function readsOf<T>(
  store: Store,
  fn: (sql) => T,
): { result: T; reads: Array<{ term: string; rows: number[] | null; n: number }> } {
  const reads: Array<{ term: string; rows: number[] | null; n: number }> = [];
  const result = store.read((sql) => {
    const spy = {
      get: (q) => sql.get(q),
      all: (q) => sql.all(q),
      arrays: (q) => {
        const got = sql.arrays(q);
        const within = q.sql.includes('json_each');
        reads.push({ term: q.parameters[1], rows: within ? JSON.parse(q.parameters[2]) : null, n: got.length });
        return got;
      },
    };
    return fn(spy);
  });
  return { result, reads };
}

describe('scoped BM25 against the formula', () => {
  it('one agent, one row: the score is the idf of its one term', async () => {
    const store = await createTestStore();
    insertRaw(store, [{ agent: 'a', text: 'okapi' }]);
    const ranking = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi']));
    // N 1, df 1, tf 1, length 1 = average: idf · 2.2 / 2.2 = ln(1 + 0.5 / 1.5).
    expect(ranking.rows).toEqual([{ row: 1, score: expect.closeTo(Math.log(4 / 3), 12), matched: 1 }]);
    expect(ranking).toMatchObject({ terms: 1, complete: true });
    store.close();
  });

  it('hand-computed: term frequency saturates, longer rows score lower, rare terms weigh more', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'tea okapi' }, // 1: len 2
      { agent: 'a', text: 'tea tea tea okapi' }, // 2: len 4, tf(tea) 3
      { agent: 'a', text: 'tea garden march dana atlas quartz' }, // 3: len 6
      { agent: 'a', text: 'garden' }, // 4: len 1
    ]);
    // N 4, total length 13: avgdl 3.25. df(tea) 3, df(okapi) 2.
    const idfTea = Math.log(1 + 1.5 / 3.5);
    const idfOkapi = Math.log(1 + 2.5 / 2.5);
    const part = (idf: number, tf: number, len: number) => (idf * tf * 2.2) / (tf + 1.2 * (0.25 + (0.75 * len) / 3.25));
    const ranking = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['tea', 'okapi']));
    const want = [
      { row: 2, score: part(idfOkapi, 1, 4) + part(idfTea, 3, 4), matched: 2 },
      { row: 1, score: part(idfOkapi, 1, 2) + part(idfTea, 1, 2), matched: 2 },
      { row: 3, score: part(idfTea, 1, 6), matched: 1 },
    ].sort((a, b) => b.score - a.score);
    expectSameRanking(ranking.rows, want);
    expect(ranking.terms).toBe(2);
    // Length normalisation: the same single `tea` in a longer row scores lower.
    expect(part(idfTea, 1, 2)).toBeGreaterThan(part(idfTea, 1, 6));
    store.close();
  });

  it('the average length is at least one token (rows of stop words only)', async () => {
    const store = await createTestStore();
    // Four rows, one token in all: avgdl would be 0.25 without the floor.
    insertRaw(store, [
      { agent: 'a', text: 'okapi' },
      { agent: 'a', text: '' },
      { agent: 'a', text: '' },
      { agent: 'a', text: '' },
    ]);
    const ranking = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi']));
    const idf = Math.log(1 + 3.5 / 1.5);
    expect(ranking.rows).toEqual([{ row: 1, score: expect.closeTo((idf * 2.2) / (1 + 1.2), 12), matched: 1 }]);
    expectSameRanking(ranking.rows, reference(store, 'a', ['okapi']));
    store.close();
  });

  it('counts and document frequencies are the agent’s own, and follow forget, modify and delete', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'tea garden' },
      { agent: 'a', text: 'tea march' },
      { agent: 'a', text: 'tea tea dana atlas' },
      { agent: 'a', text: 'garden quartz' },
      // Another agent's rows of the same words: they must not count.
      ...Array.from({ length: 12 }, () => ({ agent: 'b', text: 'tea tea garden' })),
    ]);
    const check = (tokens: string[]) => {
      const got = store.read((sql) => rankScopedText(sql, 'memory', 'a', tokens));
      expectSameRanking(got.rows, reference(store, 'a', tokens));
      return got.rows;
    };
    const first = check(['tea', 'garden']);
    expect(first).toHaveLength(4);
    // Forget (soft delete) one `tea` row: df(tea) 3 → 2, N 4 → 3, lengths change the average.
    store.write((sql) => sql.run(raw("UPDATE memories SET is_deleted = 1 WHERE id = 'm1'")));
    expect(check(['tea', 'garden']).map((r) => r.row)).not.toContain(2);
    // Modify: `garden quartz` becomes `tea okapi okapi`; df(garden) 2 → 1, df(tea) 2 → 3.
    store.write((sql) => sql.run(raw("UPDATE memories SET content = 'tea okapi okapi' WHERE id = 'm3'")));
    check(['tea', 'garden', 'okapi']);
    // Restore and delete for good.
    store.write((sql) => sql.run(raw("UPDATE memories SET is_deleted = 0 WHERE id = 'm1'")));
    store.write((sql) => sql.run(raw("DELETE FROM memories WHERE id = 'm0'")));
    check(['tea', 'garden', 'okapi', 'march']);
    // The same numbers as in a file holding only this agent's current rows.
    const alone = await createTestStore();
    const live = store.read((sql) =>
      sql.all<{ content: string }>(
        raw("SELECT content FROM memories WHERE agent_id = 'a' AND is_deleted = 0 ORDER BY seq"),
      ),
    );
    insertRaw(
      alone,
      live.map((r) => ({ agent: 'a', text: r.content })),
    );
    const scores = (s: Store) =>
      s.read((sql) => rankScopedText(sql, 'memory', 'a', ['tea', 'garden', 'okapi', 'march'])).rows.map((r) => r.score);
    expect(scores(store)).toEqual(scores(alone));
    store.close();
    alone.close();
  });

  it('equal scores are ordered by row, and a depth cut inside a tie keeps the lowest rows', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'tea garden' },
      ...Array.from({ length: 5 }, () => ({ agent: 'a', text: 'okapi march' })),
      ...Array.from({ length: 40 }, () => ({ agent: 'a', text: 'march dana' })),
    ]);
    const full = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi']));
    expect(full.rows.map((r) => r.row)).toEqual([2, 3, 4, 5, 6]);
    expect(new Set(full.rows.map((r) => r.score)).size).toBe(1);
    for (const depth of [1, 2, 4]) {
      const top = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi'], { depth }));
      expect(top.rows.map((r) => r.row)).toEqual([2, 3, 4, 5, 6].slice(0, depth));
      expect(top.complete).toBe(false);
      // The early stop (a common second term) cuts the same tie the same way.
      const early = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi', 'march'], { depth }));
      expect(early.rows.map((r) => r.row)).toEqual([2, 3, 4, 5, 6].slice(0, depth));
      expect(early.complete).toBe(false);
    }
    store.close();
    // A tie between rows found through different terms (same document frequency): row 2 is read
    // first (okapi before quartz), row 1 still wins the cut.
    const crossed = await createTestStore();
    insertRaw(crossed, [
      { agent: 'a', text: 'quartz' },
      { agent: 'a', text: 'okapi' },
      ...Array.from({ length: 10 }, () => ({ agent: 'a', text: 'tea' })),
    ]);
    const rank = (options) =>
      crossed.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi', 'quartz'], options)).rows.map((r) => r.row);
    expect(rank({})).toEqual([1, 2]);
    expect(rank({ depth: 1 })).toEqual([1]);
    crossed.close();
    // Rows above the cut and a tie at it: only as many of the tie as the depth has room for.
    const above = await createTestStore();
    insertRaw(above, [
      { agent: 'a', text: 'okapi' },
      ...Array.from({ length: 3 }, () => ({ agent: 'a', text: 'okapi tea' })),
      ...Array.from({ length: 8 }, () => ({ agent: 'a', text: 'garden' })),
    ]);
    for (const depth of [2, 3]) {
      const top = above.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi'], { depth }));
      expect(top.rows.map((r) => r.row)).toEqual([1, 2, 3].slice(0, depth));
    }
    above.close();
  });

  it('a row holding only a commoner term can still win: the early stop waits until unread terms cannot reach the floor', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      // okapi (3 rows, long) is rarer than tea (4 rows), but the short `tea tea tea` row outscores them.
      ...Array.from({ length: 3 }, (_, i) => ({
        agent: 'a',
        text: `okapi garden march dana atlas quartz w${i} x y z`,
      })),
      { agent: 'a', text: 'tea tea tea' },
      ...Array.from({ length: 3 }, () => ({ agent: 'a', text: 'tea lantern' })),
      ...Array.from({ length: 13 }, () => ({ agent: 'a', text: 'harbor' })),
    ]);
    const full = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi', 'tea']));
    expect(full.rows[0]?.row).toBe(4);
    expectSameRanking(full.rows, reference(store, 'a', ['okapi', 'tea']));
    for (const depth of [1, 2, 4]) {
      const top = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['okapi', 'tea'], { depth }));
      expect(top.rows).toEqual(full.rows.slice(0, depth));
    }
    store.close();
  });

  it.each([
    // Found by search: summed in the opposite order, the three parts of row 1 differ in the last bit.
    { case: 'rarest first', rows: ['okapi okapi march march garden garden', 'march', 'garden', 'garden'] },
    // garden and march have the same document frequency: ties are read in term order.
    { case: 'ties by term', rows: ['okapi okapi garden march march march', 'garden march'] },
  ])('a row’s score is the same number in every ranking: parts summed rarest term first ($case)', async ({ rows }) => {
    const store = await createTestStore();
    insertRaw(
      store,
      rows.map((text) => ({ agent: 'a', text })),
    );
    // Every order of the query's words: the reading order must not depend on it.
    for (const tokens of [
      ['march', 'garden', 'okapi'],
      ['garden', 'march', 'okapi'],
      ['okapi', 'garden', 'march'],
      ['okapi', 'march', 'garden'],
      ['garden', 'okapi', 'march'],
      ['march', 'okapi', 'garden'],
    ]) {
      const rank = (options) => store.read((sql) => rankScopedText(sql, 'memory', 'a', tokens, options)).rows[0];
      const full = rank({});
      const want = reference(store, 'a', tokens)[0];
      expect(full?.row).toBe(1);
      // The reference sums in the same order: equal to the last bit.
      expect(full?.score).toBe(want?.score);
      expect(rank({ depth: 1 })).toEqual(full);
      expect(rank({ matching: 'all' })).toEqual(full);
      expect(rank({ rows: [1] })).toEqual(full);
    }
    store.close();
  });

  it('a ranking that read every term is complete; one cut at the depth is not', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'okapi' },
      { agent: 'a', text: 'okapi okapi tea' },
      { agent: 'a', text: 'tea garden' },
    ]);
    const rank = (tokens: string[], options) =>
      store.read((sql) => rankScopedText(sql, 'memory', 'a', tokens, options));
    expect(rank(['okapi'], { depth: 2 })).toMatchObject({ complete: true, terms: 1 });
    // Row 1 (`okapi`, length 1) beats row 2 (`okapi` twice in 3 tokens, average length 2).
    expect(rank(['okapi'], { depth: 2 }).rows.map((r) => r.row)).toEqual([1, 2]);
    expect(rank(['okapi'], { depth: 1 })).toMatchObject({ complete: false, rows: [{ row: 1 }] });
    expect(rank(['okapi', 'tea'], { depth: 3 }).complete).toBe(true);
    expect(rank(['okapi', 'tea'], {}).complete).toBe(true);
    expect(rank(['okapi', 'tea'], { matching: 'all' })).toMatchObject({
      complete: true,
      rows: [{ row: 2, matched: 2 }],
    });
    expect(rank(['okapi', 'tea'], { matching: 'all', depth: 1 }).complete).toBe(true);
    expect(rank(['okapi', 'tea', 'garden'], { matching: 'all' })).toEqual({ rows: [], terms: 3, complete: true });
    // Terms the agent never wrote, and stop words, are no terms to match.
    expect(rank(['zebra'], {})).toEqual({ rows: [], terms: 1, complete: true });
    expect(rank(['okapi', 'zebra'], { matching: 'all' })).toEqual({ rows: [], terms: 2, complete: true });
    expect(rank(['the', 'and'], {})).toEqual({ rows: [], terms: 0, complete: true });
    expect(rank(['okapi', 'okapis', 'the'], {})).toMatchObject({ terms: 1 });
    // An agent with no rows at all, and one whose rows were all deleted.
    expect(store.read((sql) => rankScopedText(sql, 'memory', 'nobody', ['okapi']))).toEqual({
      rows: [],
      terms: 1,
      complete: true,
    });
    store.write((sql) => sql.run(raw("DELETE FROM memories WHERE agent_id = 'a'")));
    expect(rank(['okapi'], {})).toEqual({ rows: [], terms: 1, complete: true });
    store.close();
  });
});

describe('what the ranking reads', () => {
  it('with a depth, the common term is looked up for the open rows only, never read in full; absent terms never', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      ...Array.from({ length: 60 }, (_, i) => ({ agent: 'a', text: `tea garden ${i % 2 ? 'march' : 'dana'}` })),
      { agent: 'a', text: 'okapi tea' },
      { agent: 'a', text: 'okapi okapi tea tea' },
      { agent: 'a', text: 'okapi atlas quartz' },
    ]);
    // `zebra` is in no row of a's: never read.
    const { result, reads } = readsOf(store, (sql) =>
      rankScopedText(sql, 'memory', 'a', ['tea', 'zebra', 'okapi'], { depth: 3 }),
    );
    expect(reads).toEqual([
      { term: 'okapi', rows: null, n: 3 },
      { term: 'tea', rows: [61, 62, 63], n: 2 },
    ]);
    const full = store.read((sql) => rankScopedText(sql, 'memory', 'a', ['tea', 'okapi']));
    expect(result.rows).toEqual(full.rows.slice(0, 3));
    expect(result.complete).toBe(false);
    // Without a depth every term is read in full, rarest first.
    const all = readsOf(store, (sql) => rankScopedText(sql, 'memory', 'a', ['tea', 'okapi', 'zebra']));
    expect(all.reads).toEqual([
      { term: 'okapi', rows: null, n: 3 },
      { term: 'tea', rows: null, n: 62 },
    ]);
    // Only rows that can still reach the depth-th score stay open.
    const one = readsOf(store, (sql) => rankScopedText(sql, 'memory', 'a', ['tea', 'okapi'], { depth: 1 }));
    expect(one.reads[0]).toEqual({ term: 'okapi', rows: null, n: 3 });
    expect(one.reads[1]?.rows?.length).toBeLessThan(3);
    expect(one.result.rows).toEqual(full.rows.slice(0, 1));
    store.close();
  });

  it('with `all`, the rarest term is read and the others looked up for its rows', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      ...Array.from({ length: 30 }, () => ({ agent: 'a', text: 'tea garden' })),
      { agent: 'a', text: 'okapi tea' },
      { agent: 'a', text: 'okapi march' },
    ]);
    const { result, reads } = readsOf(store, (sql) =>
      rankScopedText(sql, 'memory', 'a', ['tea', 'okapi'], { matching: 'all' }),
    );
    expect(reads).toEqual([
      { term: 'okapi', rows: null, n: 2 },
      { term: 'tea', rows: [31, 32], n: 1 },
    ]);
    expectSameRanking(result.rows, reference(store, 'a', ['tea', 'okapi'], 'all'));
    // A term in none of the agent's rows: nothing can match all, nothing is read.
    const absent = readsOf(store, (sql) => rankScopedText(sql, 'memory', 'a', ['okapi', 'zebra'], { matching: 'all' }));
    expect(absent).toEqual({ result: { rows: [], terms: 2, complete: true }, reads: [] });
    store.close();
  });

  it('a chosen row set is scored with point lookups, from the whole scope’s statistics', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'tea garden' },
      { agent: 'a', text: 'okapi tea march' },
      { agent: 'a', text: 'okapi' },
      { agent: 'a', text: 'garden dana' },
      { agent: 'b', text: 'okapi tea' },
    ]);
    const tokens = ['tea', 'okapi', 'garden'];
    const full = store.read((sql) => rankScopedText(sql, 'memory', 'a', tokens));
    const { result, reads } = readsOf(store, (sql) =>
      rankScopedText(sql, 'memory', 'a', tokens, { rows: [2, 3, 5, 99] }),
    );
    // Row 5 is agent b's: not in a's scope, never returned.
    expect(result).toEqual({ rows: full.rows.filter((r) => r.row === 2 || r.row === 3), terms: 3, complete: true });
    expect(reads.every((r) => r.rows !== null)).toBe(true);
    expect(readsOf(store, (sql) => rankScopedText(sql, 'memory', 'a', tokens, { rows: [] }))).toEqual({
      result: { rows: [], terms: 3, complete: true },
      reads: [],
    });
    store.close();
  });
});

describe('corpora', () => {
  it('notes and memories are ranked from their own tables', async () => {
    const store = await createTestStore();
    insertRaw(store, [{ agent: 'a', text: 'zebra tea' }]);
    store.write((sql) =>
      insertNote(sql, {
        id: 'n1',
        agent_id: 'a',
        title: 'Okapi',
        content: 'tea',
        tags: '[]',
        status: 'active',
        linked_entities: '[]',
        created_at: 0,
        updated_at: 0,
        resolved_at: null,
        archived_at: null,
      }),
    );
    const rows = (corpus, word) => store.read((sql) => rankScopedText(sql, corpus, 'a', [word])).rows.length;
    expect([rows('memory', 'zebra'), rows('memory', 'okapi'), rows('note', 'zebra'), rows('note', 'okapi')]).toEqual([
      1, 0, 0, 1,
    ]);
    store.close();
  });
});

const WORDS = ['tea', 'garden', 'okapi', 'march', 'dana', 'atlas', 'quartz', 'the', 'with'];
const text = fc
  .array(fc.constantFrom(...WORDS, 'tea', 'tea', 'garden'), { minLength: 0, maxLength: 7 })
  .map((w) => w.join(' '));

describe('scoped BM25 equals the formula after any writes (property)', () => {
  it('full, depth, all and chosen-row rankings of each agent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ agent: fc.constantFrom('a', 'a', 'b'), text }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.record({ agent: fc.constantFrom('a', 'b'), text }), { maxLength: 8 }),
        fc.array(fc.record({ kind: fc.constantFrom('forget', 'modify', 'delete'), index: fc.nat(70), text }), {
          maxLength: 10,
        }),
        fc.array(fc.constantFrom(...WORDS, 'zebra'), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.nat(80), { maxLength: 10 }),
        async (rows, batch, ops, query, depth, chosen) => {
          const store = await createTestStore();
          insertRaw(store, rows);
          // Through the memory writer too (it indexes its batch itself).
          store.write((sql) =>
            createMemories(
              sql,
              { ids: createSequentialIds('w'), vectorAvailable: false, inlineEntityLinking: false },
              batch.map((m, i) => ({
                agentId: m.agent,
                content: prepareContent(`${m.text} w${i}`),
                type: 'fact',
                importance: 0.5,
                audit: {},
              })),
              0,
            ),
          );
          store.write((sql) => {
            for (const o of ops) {
              const id = sql.get<{ id: string }>(
                raw('SELECT id FROM memories ORDER BY seq LIMIT 1 OFFSET ?', o.index),
              )?.id;
              if (id === undefined) continue;
              if (o.kind === 'forget') sql.run(raw('UPDATE memories SET is_deleted = 1 WHERE id = ?', id));
              else if (o.kind === 'modify')
                sql.run(raw('UPDATE OR IGNORE memories SET content = ? WHERE id = ?', o.text, id));
              else sql.run(raw('DELETE FROM memories WHERE id = ?', id));
            }
          });
          for (const agent of ['a', 'b']) {
            const rank = (options = {}) => store.read((sql) => rankScopedText(sql, 'memory', agent, query, options));
            const want = reference(store, agent, query);
            const full = rank();
            expectSameRanking(full.rows, want);
            expect(full.terms).toBe(queryIndexTerms(query).length);
            expect(full.complete).toBe(true);

            const top = rank({ depth });
            expect(top.rows).toEqual(full.rows.slice(0, depth));
            if (top.complete) expect(top.rows).toEqual(full.rows);
            else expect(top.rows.length).toBeLessThanOrEqual(full.rows.length);

            const all = rank({ matching: 'all' });
            expectSameRanking(all.rows, reference(store, agent, query, 'all'));
            expect(all.rows).toEqual(full.rows.filter((r) => r.matched === full.terms));
            const allTop = rank({ matching: 'all', depth });
            expect(allTop.rows).toEqual(all.rows.slice(0, depth));
            expect(allTop.complete).toBe(all.rows.length <= depth);

            const within = rank({ rows: chosen });
            expect(within.rows).toEqual(full.rows.filter((r) => chosen.includes(r.row)));
            expect(within.complete).toBe(true);
          }
          store.close();
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('the memory writer’s text index batch', () => {
  /** Postings and counts of the memory corpus as `agent term row tf len` lines, and `agent docs tokens`. */
  const indexOf = (store: Store) => ({
    postings: store
      .read((sql) =>
        sql.all<{ p: string }>(
          raw(`SELECT s.agent_id || ' ' || p.term || ' ' || p.row || ' ' || p.tf || ' ' || p.len AS p
               FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory'`),
        ),
      )
      .map((r) => r.p)
      .sort(),
    scopes: store
      .read((sql) =>
        sql.all<{ c: string }>(
          raw(
            `SELECT agent_id || ' ' || docs || ' ' || tokens AS c FROM text_scopes WHERE corpus = 'memory' ORDER BY agent_id`,
          ),
        ),
      )
      .map((r) => r.c),
  });
  /** The same, recomputed from the live rows. */
  const recomputed = (store: Store) => {
    const live = store.read((sql) =>
      sql.all<{ seq: number; agent_id: string; content: string }>(
        raw('SELECT seq, agent_id, content FROM memories WHERE is_deleted = 0'),
      ),
    );
    const postings: string[] = [];
    const counts = new Map<string, [number, number]>();
    for (const r of live) {
      const t = textTerms(r.content);
      for (const [term, tf] of t.counts) postings.push(`${r.agent_id} ${term} ${r.seq} ${tf} ${t.length}`);
      const [docs, tokens] = counts.get(r.agent_id) ?? [0, 0];
      counts.set(r.agent_id, [docs + 1, tokens + t.length]);
    }
    return {
      postings: postings.sort(),
      scopes: [...counts].sort(([a], [b]) => (a < b ? -1 : 1)).map(([a, [d, t]]) => `${a} ${d} ${t}`),
    };
  };
  const words = (from: number, n: number, repeat = 1) =>
    Array.from({ length: n }, (_, i) =>
      Array(repeat)
        .fill(`t${from + i}`)
        .join(' '),
    ).join(' ');
  let writes = 0;
  const write = (store: Store, memories: Array<{ agent: string; text: string }>) =>
    store.write((sql) =>
      createMemories(
        sql,
        { ids: createSequentialIds(`w${++writes}`), vectorAvailable: false, inlineEntityLinking: false },
        memories.map((m) => ({
          agentId: m.agent,
          content: prepareContent(m.text),
          type: 'fact',
          importance: 0.5,
          audit: {},
        })),
        0,
      ),
    );

  it('indexes every memory of a call, per agent, whatever the number of postings', async () => {
    // Per agent and call: 31, 32, 33, 64 and 70 postings (one statement holds 32).
    for (const sizes of [[31], [32], [33], [20, 44], [70], [5, 30, 35]]) {
      const store = await createTestStore();
      let from = 0;
      const batch = sizes.flatMap((n, i) => {
        const texts = [
          { agent: 'a', text: `${words(from, n, 1 + (i % 3))} the with` },
          { agent: 'b', text: words(from + 1000, n + 1) },
        ];
        from += n;
        return texts;
      });
      write(store, batch);
      // A second call adds to the same scopes.
      write(store, [
        { agent: 'a', text: 'tea garden tea' },
        { agent: 'c', text: words(5000, 40) },
      ]);
      const want = recomputed(store);
      expect(indexOf(store)).toEqual(want);
      expect(want.postings.length).toBeGreaterThan(2 * sizes.reduce((s, n) => s + n, 0));
      // And the ranking reads them: every `t…` word of agent a finds its row.
      expect(store.read((sql) => rankScopedText(sql, 'memory', 'a', ['t0'])).rows).toHaveLength(1);
      store.close();
    }
  });

  it('writes postings 32 to a statement, sorted by term then row, the rest in 16/8/4/2/1-row statements, one count update per agent', async () => {
    const { TextIndexBatch } = await import('../src/memory-writer/text-index-batch.js');
    const store = await createTestStore();
    const batch = new TextIndexBatch();
    // Agent a: 39 + 23 + 1 + 1 = 64 postings (exactly two statements), `tea` in all four rows, added
    // in descending row order; b: 3; c: 33.
    batch.add('a', 6, 'tea');
    batch.add('b', 3, 'tea garden okapi');
    batch.add('a', 5, 'tea');
    batch.add('a', 2, `${words(100, 22, 2)} tea`);
    batch.add('c', 4, words(200, 33));
    batch.add('a', 1, `${words(0, 38)} tea`);
    const runs: number[] = [];
    const inserted: string[][] = [];
    store.write((sql) =>
      batch.flush({
        get: (q) => sql.get(q),
        run: (q) => {
          runs.push(q.parameters.length);
          if (q.sql.includes('text_postings')) {
            const one: string[] = [];
            for (let i = 0; i < q.parameters.length; i += 5) one.push(`${q.parameters[i + 1]}@${q.parameters[i + 2]}`);
            inserted.push(one);
          }
          return sql.run(q);
        },
      }),
    );
    // Per agent: the scope, statements of 32 postings (5 values each), the rest by its binary digits
    // (b's 3 postings: 2 + 1), the counts.
    expect(runs).toEqual([2, 160, 160, 3, 2, 10, 5, 3, 2, 160, 5, 3]);
    expect(indexOf(store).scopes).toEqual(['a 4 86', 'b 1 3', 'c 1 33']);
    // Sorted by term, then row (consecutive inserts land on the same index pages).
    const a = [...(inserted[0] ?? []), ...(inserted[1] ?? [])];
    const byTermThenRow = (x: string, y: string) => {
      const [tx, rx] = x.split('@');
      const [ty, ry] = y.split('@');
      return tx < ty ? -1 : tx > ty ? 1 : Number(rx) - Number(ry);
    };
    expect(a).toEqual([...a].sort(byTermThenRow));
    expect(a.slice(0, 4)).toEqual(['t0@1', 't1@1', 't10@1', 't100@2']);
    expect(a.slice(-4)).toEqual(['tea@1', 'tea@2', 'tea@5', 'tea@6']);
    const postings = store.read((sql) =>
      sql.all<{ term: string; row: number; tf: number; len: number }>(
        raw(
          "SELECT term, row, tf, len FROM text_postings WHERE term IN ('t0', 't100', 't121', 't37', 'tea') ORDER BY term, row",
        ),
      ),
    );
    expect(postings).toEqual([
      { term: 't0', row: 1, tf: 1, len: 39 },
      { term: 't100', row: 2, tf: 2, len: 45 },
      { term: 't121', row: 2, tf: 2, len: 45 },
      { term: 't37', row: 1, tf: 1, len: 39 },
      { term: 'tea', row: 1, tf: 1, len: 39 },
      { term: 'tea', row: 2, tf: 1, len: 45 },
      { term: 'tea', row: 3, tf: 1, len: 3 },
      { term: 'tea', row: 5, tf: 1, len: 1 },
      { term: 'tea', row: 6, tf: 1, len: 1 },
    ]);
    // Flushed: a second flush writes nothing new and counts nothing twice.
    store.write((sql) => batch.flush(sql));
    expect(indexOf(store).scopes).toEqual(['a 4 86', 'b 1 3', 'c 1 33']);
    store.close();
  });
});

describe('lexical search over the scoped ranking', () => {
  /** Rows of agent a: `okapi` padded with i other words, so scores fall with i; types as given. */
  async function padded(types: string[]) {
    const store = await createTestStore();
    store.write((sql) => {
      for (const [i, type] of types.entries()) {
        const content = `okapi ${Array.from({ length: i }, (_, j) => `p${j}`).join(' ')}`;
        sql.run(
          raw(
            `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
             VALUES (?, 'a', ?, ?, ?, ?, 0, 0)`,
            `m${i}`,
            type,
            content,
            content,
            `h${i}`,
          ),
        );
      }
    });
    return store;
  }
  /** The search, with the depth of each ranking it read (the pairs handed to the row query). */
  function search(
    store: Store,
    params: { tokens: string[]; limit: number; types?: string[]; matching?: 'all' | 'any' },
  ) {
    const passes: number[] = [];
    const hits = store.read((sql) =>
      searchMemoriesLexical(
        {
          get: (q) => sql.get(q),
          arrays: (q) => sql.arrays(q),
          all: (q) => {
            passes.push(JSON.parse(q.parameters[0] as string).length);
            return sql.all(q);
          },
        },
        {
          agentId: 'a',
          terms: { tokens: params.tokens },
          matching: params.matching ?? 'any',
          filters: params.types ? { types: params.types } : {},
          now: 0,
          limit: params.limit,
        },
      ),
    );
    return { hits, passes };
  }

  it('reads the limit plus a margin first: 16 more, or half again the limit when that is more', async () => {
    const { firstDepth } = await import('../src/repositories/lexical-search.js');
    expect([1, 10, 31, 32, 33, 100].map(firstDepth)).toEqual([17, 26, 47, 48, 50, 150]);
    const store = await padded(Array(200).fill('fact'));
    expect(search(store, { tokens: ['okapi'], limit: 10 }).passes).toEqual([26]);
    expect(search(store, { tokens: ['okapi'], limit: 100 }).passes).toEqual([150]);
    store.close();
  });

  it('one pass when the filters leave exactly the limit; a deeper one when they leave fewer', async () => {
    const ids = (types: string[], type: string) => types.flatMap((t, i) => (t === type ? [`m${i}`] : []));
    // Of the first 26 ranked rows (limit 10), exactly 10 are facts; 30 more facts further down.
    const exactTypes = [
      ...[...Array(26).keys()].map((i) => (i % 13 < 5 ? 'fact' : 'decision')),
      ...Array(30).fill('fact'),
    ];
    const exact = await padded(exactTypes);
    const one = search(exact, { tokens: ['okapi'], limit: 10, types: ['fact'] });
    expect(one.passes).toEqual([26]);
    expect(one.hits.map((h) => h.id)).toEqual(ids(exactTypes, 'fact').slice(0, 10));
    exact.close();
    // Only 3 facts among the first 26: the next ranking is 8 times deeper (here: every match).
    const fewTypes = [
      ...[...Array(26).keys()].map((i) => (i % 9 === 4 ? 'fact' : 'decision')),
      ...Array(60).fill('fact'),
    ];
    const few = await padded(fewTypes);
    const two = search(few, { tokens: ['okapi'], limit: 10, types: ['fact'] });
    expect(two.passes).toEqual([26, 86]);
    expect(two.hits.map((h) => h.id)).toEqual(ids(fewTypes, 'fact').slice(0, 10));
    // Fewer matches than the limit: one complete ranking, every match.
    const all = search(few, { tokens: ['okapi'], limit: 100, types: ['fact'] });
    expect(all.passes).toEqual([86]);
    expect(all.hits.map((h) => h.id)).toEqual(ids(fewTypes, 'fact'));
    few.close();
  });

  it('orders by score, then row; matches every term with `all`; hands back minus the score', async () => {
    const store = await createTestStore();
    insertRaw(store, [
      { agent: 'a', text: 'okapi tea' },
      { agent: 'a', text: 'okapi' },
      { agent: 'a', text: 'okapi tea' },
      { agent: 'a', text: 'tea garden march' },
      { agent: 'a', text: 'okapi' },
      { agent: 'b', text: 'okapi tea' },
    ]);
    const lexical = (tokens: string[], matching: 'all' | 'any', limit = 10) =>
      store.read((sql) =>
        searchMemoriesLexical(sql, { agentId: 'a', terms: { tokens }, matching, filters: {}, now: 0, limit }),
      );
    const any = lexical(['okapi', 'tea'], 'any');
    const want = reference(store, 'a', ['okapi', 'tea']);
    expect(any.map((h) => h.seq)).toEqual(want.map((r) => r.row));
    for (const [i, h] of any.entries()) expect(h.bm25).toBeCloseTo(-(want[i]?.score as number), 9);
    // Ties (identical rows: m0 and m2, m1 and m4) in row order.
    expect(any.map((h) => h.id)).toEqual(['m0', 'm2', 'm3', 'm1', 'm4']);
    expect(lexical(['okapi', 'tea'], 'all').map((h) => h.id)).toEqual(['m0', 'm2']);
    expect(lexical(['okapi', 'tea'], 'any', 3).map((h) => h.id)).toEqual(['m0', 'm2', 'm3']);
    expect(lexical(['okapi', 'tea'], 'all', 1).map((h) => h.id)).toEqual(['m0']);
    expect(lexical(['zebra'], 'any')).toEqual([]);
    store.close();
  });
});
