import { createSequentialIds } from '@memory/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  changeMemoryProgram,
  createMemories,
  forgetMemoryProgram,
  prepareContent,
  recoverMemoryProgram,
  runSqliteWriterProgram,
} from '../src/index.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { queryIndexTerms, textTerms } from '../src/text-terms.js';

describe('index terms', () => {
  it('stems English words, folds diacritics and case, and keeps other scripts whole', () => {
    expect([...textTerms('Painting paints, PAINTED café Café naïve 東京').counts]).toEqual([
      ['paint', 3],
      ['cafe', 2],
      ['naiv', 1],
      ['東京', 1],
    ]);
    expect(textTerms('Painting paints, PAINTED café').length).toBe(4);
    expect(queryIndexTerms(['painting', 'paints', 'tea'])).toEqual(['paint', 'tea']);
  });
});

type Op =
  | { kind: 'insert'; agent: string; text: string }
  // Through the memory writer, which indexes its batch itself (the insert trigger stays idle).
  | { kind: 'write'; memories: Array<{ agent: string; text: string }> }
  | { kind: 'update'; index: number; text: string }
  | { kind: 'soft-delete'; index: number }
  | { kind: 'restore'; index: number }
  | { kind: 'delete'; index: number }
  // Through the memory writer, which moves the text index rows itself (the update trigger stays idle).
  | { kind: 'change'; index: number; text: string }
  | { kind: 'forget'; index: number }
  | { kind: 'recover'; index: number };

const WORDS = ['tea', 'teas', 'garden', 'gardening', 'dana', 'march'];
const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 5 }).map((w) => w.join(' '));
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), agent: fc.constantFrom('a', 'b'), text }),
  fc.record({
    kind: fc.constant('write' as const),
    // Repeated texts in one batch and across batches: duplicates are refused and must not be indexed.
    memories: fc.array(fc.record({ agent: fc.constantFrom('a', 'b'), text }), { minLength: 1, maxLength: 6 }),
  }),
  fc.record({ kind: fc.constant('update' as const), index: fc.nat(30), text }),
  fc.record({ kind: fc.constant('soft-delete' as const), index: fc.nat(30) }),
  fc.record({ kind: fc.constant('restore' as const), index: fc.nat(30) }),
  fc.record({ kind: fc.constant('delete' as const), index: fc.nat(30) }),
  fc.record({ kind: fc.constant('change' as const), index: fc.nat(30), text }),
  fc.record({ kind: fc.constant('forget' as const), index: fc.nat(30) }),
  fc.record({ kind: fc.constant('recover' as const), index: fc.nat(30) }),
);

/** Runs a writer program as the engine does (triggers idle); a refused change (a clash) writes nothing. */
function tryWriter(run: () => unknown): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof Error && 'code' in error && error.code === 'CONFLICT')) throw error;
  }
}

describe('the scoped text index follows every write (property)', () => {
  it('postings and per-agent counts always equal those recomputed from the live rows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const store = await createTestStore();
        const ids = createSequentialIds('w');
        const deps = { ids, vectorAvailable: false, inlineEntityLinking: false };
        let n = 0;
        store.write((sql) => {
          for (const o of ops) {
            // Updates and deletes pick a row by position, so they reach rows of both insert paths.
            const id =
              'index' in o
                ? sql.get<{ id: string }>(raw('SELECT id FROM memories ORDER BY seq LIMIT 1 OFFSET ?', o.index))?.id
                : undefined;
            if (o.kind === 'write') {
              createMemories(
                sql,
                deps,
                o.memories.map((m) => ({
                  agentId: m.agent,
                  content: prepareContent(`${m.text} w`),
                  type: 'fact',
                  importance: 0.5,
                  audit: {},
                })),
                0,
              );
              // Then an insert by trigger in the same transaction: the trigger is back on.
              sql.run(
                raw(
                  `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
                   VALUES (?, 'b', 'fact', 'tea after', 'tea after', ?, 0, 0)`,
                  `m${n}`,
                  `h${n}`,
                ),
              );
              n++;
            } else if (o.kind === 'insert') {
              sql.run(
                raw(
                  `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
                   VALUES (?, ?, 'fact', ?, ?, ?, 0, 0)`,
                  `m${n}`,
                  o.agent,
                  o.text,
                  o.text,
                  `h${n}`,
                ),
              );
              n++;
            } else if (id === undefined) {
              // No row at that position yet.
            } else if (o.kind === 'update') sql.run(raw('UPDATE memories SET content = ? WHERE id = ?', o.text, id));
            else if (o.kind === 'soft-delete') sql.run(raw('UPDATE memories SET is_deleted = 1 WHERE id = ?', id));
            // OR IGNORE: the writer may have created the same content again since (the live row wins).
            else if (o.kind === 'restore')
              sql.run(raw('UPDATE OR IGNORE memories SET is_deleted = 0 WHERE id = ?', id));
            else if (o.kind === 'change' || o.kind === 'forget' || o.kind === 'recover') {
              const row = sql.get<{ agent_id: string; is_deleted: number }>(
                raw('SELECT agent_id, is_deleted FROM memories WHERE id = ?', id),
              ) as { agent_id: string; is_deleted: number };
              const request = { agentId: row.agent_id, id, audit: {} };
              if (o.kind === 'change' && row.is_deleted === 0)
                tryWriter(() =>
                  runSqliteWriterProgram(sql, (target) =>
                    changeMemoryProgram(target, deps, { ...request, content: prepareContent(`${o.text} c`) }, 1),
                  ),
                );
              else if (o.kind === 'forget' && row.is_deleted === 0)
                runSqliteWriterProgram(sql, (target) => forgetMemoryProgram(target, deps, request, 1));
              else if (o.kind === 'recover' && row.is_deleted === 1)
                tryWriter(() =>
                  runSqliteWriterProgram(sql, (target) =>
                    recoverMemoryProgram(target, deps, { ...request, windowMs: 1e12 }, 1),
                  ),
                );
            } else sql.run(raw('DELETE FROM memories WHERE id = ?', id));
          }
        });
        const live = store.read((sql) =>
          sql.all<{ seq: number; agent_id: string; content: string }>(
            raw('SELECT seq, agent_id, content FROM memories WHERE is_deleted = 0'),
          ),
        );
        const expected: string[] = [];
        const counts = new Map<string, { docs: number; tokens: number }>();
        for (const row of live) {
          const t = textTerms(row.content);
          for (const [term, tf] of t.counts) expected.push(`${row.agent_id} ${term} ${row.seq} ${tf} ${t.length}`);
          const c = counts.get(row.agent_id) ?? { docs: 0, tokens: 0 };
          counts.set(row.agent_id, { docs: c.docs + 1, tokens: c.tokens + t.length });
        }
        const postings = store.read((sql) =>
          sql.all<{ p: string }>(
            raw(`SELECT s.agent_id || ' ' || p.term || ' ' || p.row || ' ' || p.tf || ' ' || p.len AS p
                 FROM text_postings p JOIN text_scopes s ON s.scope = p.scope WHERE s.corpus = 'memory'`),
          ),
        );
        expect(postings.map((r) => r.p).sort()).toEqual(expected.sort());
        const scopes = store.read((sql) =>
          sql.all<{ agent_id: string; docs: number; tokens: number }>(
            raw(`SELECT agent_id, docs, tokens FROM text_scopes WHERE corpus = 'memory' AND docs > 0`),
          ),
        );
        expect(new Map(scopes.map((s) => [s.agent_id, { docs: s.docs, tokens: s.tokens }]))).toEqual(counts);
        // The live memory counts follow the same writes (the writer counts its own inserts, migration 21).
        const liveCounts = store.read((sql) =>
          sql.all<{ k: string }>(
            raw(`SELECT agent_id || ' ' || model || ' ' || day || ' ' || n AS k FROM memory_counts
                 WHERE kind = 'live' AND n <> 0 ORDER BY k`),
          ),
        );
        const recount = store.read((sql) =>
          sql.all<{ k: string }>(
            raw(`SELECT agent_id || ' ' || coalesce(embedding_model, '') || ' ' || (created_at / 86400000) || ' ' || count(*) AS k
                 FROM memories WHERE is_deleted = 0
                 GROUP BY agent_id, coalesce(embedding_model, ''), created_at / 86400000 ORDER BY k`),
          ),
        );
        expect(liveCounts).toEqual(recount);
        store.close();
      }),
      { numRuns: 60 },
    );
  });
});

describe('the memory writer idles the insert trigger only while it writes', () => {
  it('a raw insert after a writer call that threw is indexed by the trigger', async () => {
    const store = await createTestStore();
    const failing = {
      ids: createSequentialIds('w'),
      vectorAvailable: false,
      inlineEntityLinking: false,
      onContentLive: () => {
        throw new Error('host hook failed');
      },
    };
    store.write((sql) => {
      const one = {
        agentId: 'a',
        content: prepareContent('zebra tea'),
        type: 'fact' as const,
        importance: 0.5,
        audit: {},
      };
      expect(() => createMemories(sql, failing, [one], 0)).toThrow('host hook failed');
      sql.run(
        raw(
          `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
           VALUES ('r1', 'a', 'fact', 'okapi garden', 'okapi garden', 'hr1', 0, 0)`,
        ),
      );
    });
    const terms = store.read((sql) =>
      sql.all<{ term: string }>(
        raw("SELECT p.term FROM text_postings p JOIN memories m ON m.seq = p.row WHERE m.id = 'r1' ORDER BY p.term"),
      ),
    );
    expect(terms.map((t) => t.term)).toEqual(['garden', 'okapi']);
    store.close();
  });
});

describe('early-stopping ranking (property)', () => {
  it('the top depth rows equal the head of the full ranking', async () => {
    const { rankScopedText } = await import('../src/repositories/scoped-text-search.js');
    const words = ['tea', 'garden', 'dana', 'march', 'atlas', 'quartz'];
    await fc.assert(
      fc.asyncProperty(
        // Skewed word choice: common and rare terms, so the early stop is taken.
        fc.array(
          fc.array(fc.constantFrom(...words, 'tea', 'tea', 'tea', 'garden', 'garden'), { minLength: 1, maxLength: 6 }),
          {
            minLength: 1,
            maxLength: 120,
          },
        ),
        fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 30 }),
        async (docs, query, depth) => {
          const store = await createTestStore();
          store.write((sql) => {
            for (const [i, d] of docs.entries())
              sql.run(
                raw(
                  `INSERT INTO memories (id, agent_id, type, content, normalized_content, content_hash, created_at, updated_at)
                   VALUES (?, 'a', 'fact', ?, ?, ?, 0, 0)`,
                  `m${i}`,
                  d.join(' '),
                  d.join(' '),
                  `h${i}`,
                ),
              );
          });
          const full = store.read((sql) => rankScopedText(sql, 'memory', 'a', query));
          const top = store.read((sql) => rankScopedText(sql, 'memory', 'a', query, { depth }));
          expect(top.rows.slice(0, depth)).toEqual(full.rows.slice(0, depth));
          const all = store.read((sql) => rankScopedText(sql, 'memory', 'a', query, { matching: 'all' }));
          expect(all.rows).toEqual(full.rows.filter((r) => r.matched === full.terms));
          store.close();
        },
      ),
      { numRuns: 80 },
    );
  });
});
