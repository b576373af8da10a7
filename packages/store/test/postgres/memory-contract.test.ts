import { isMemoryError } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachMemoryVectorProgram } from '../../src/memory-writer/attach-vector.js';
import { changeMemoryProgram } from '../../src/memory-writer/change-memory.js';
import type { MemoryWriteDeps, WriterTarget } from '../../src/memory-writer/context.js';
import { createMemoriesProgram, type NewMemory, prepareContent } from '../../src/memory-writer/create-memories.js';
import { forgetMemoryProgram, recoverMemoryProgram } from '../../src/memory-writer/forget-memory.js';
import { all, get, type Program, portable, run } from '../../src/program/program.js';
import { blobToVector } from '../../src/repositories/embeddings.js';
import { deleteHintsProgram, insertHintsProgram, searchHintsProgram } from '../../src/repositories/hints.js';
import { listHistoryProgram } from '../../src/repositories/history.js';
import { searchMemoriesLexicalProgram } from '../../src/repositories/lexical-search.js';
import { findMemoryProgram } from '../../src/repositories/memories.js';
import { listMemoryPageProgram } from '../../src/repositories/memory-list.js';
import { rankScopedTextProgram, type TextCorpus } from '../../src/repositories/scoped-text-search.js';
import { textTerms } from '../../src/text-terms.js';
import { postgresTestServer } from '../support/postgres.js';
import {
  type MemoryBackend,
  openPgliteBackend,
  openServerBackend,
  openSqliteBackend,
  writerDeps,
} from './memory-backends.js';

// The memory writer and its reads, one contract for every backend: SQLite and PostgreSQL (PGlite,
// in process). Each test uses its own agents, so the tests of one backend share one database.

const NOW = Date.UTC(2026, 0, 1);
// The real server is the run's (vitest global setup); without one its block is skipped with the reason
// (and fails under MEMORY_REQUIRE_POSTGRES=1, as in CI).
const server = await postgresTestServer();
const BACKENDS = [
  { name: 'sqlite', open: openSqliteBackend, skip: '' },
  { name: 'postgres (PGlite)', open: openPgliteBackend, skip: '' },
  { name: 'postgres (server)', open: openServerBackend, skip: server.available ? '' : ` (skipped: ${server.reason})` },
];

export const memory = (agentId: string, content: string, extra: Partial<NewMemory> = {}): NewMemory => ({
  agentId,
  content: prepareContent(content),
  type: 'fact',
  importance: 0.5,
  audit: { actor: { id: 'tester', type: 'operator' } },
  ...extra,
});

const search = (agentId: string, words: string[], limit = 10) =>
  searchMemoriesLexicalProgram({
    agentId,
    terms: { tokens: words, phrases: [] } as never,
    matching: 'any',
    filters: {},
    now: NOW,
    limit,
  });

function* countRows(table: string, agentId: string): Program<number> {
  return (
    (yield* get<{ n: number }>(portable(`SELECT count(*) AS n FROM ${table} WHERE agent_id = ?`, agentId)))?.n ?? 0
  );
}

/** The scope's postings and counts as stored, and as recomputed from the live rows' text. */
function* textIndexState(
  corpus: TextCorpus,
  agentId: string,
  liveTexts: Program<Array<{ seq: number; text: string }>>,
) {
  const scope = yield* get<{ scope: number; docs: number; tokens: number }>(
    portable('SELECT scope, docs, tokens FROM text_scopes WHERE corpus = ? AND agent_id = ?', corpus, agentId),
  );
  const stored = scope
    ? yield* all<{ term: string; row: number; tf: number; len: number }>(
        portable('SELECT term, row, tf, len FROM text_postings WHERE scope = ? ORDER BY row, term', scope.scope),
      )
    : [];
  const expected: Array<{ term: string; row: number; tf: number; len: number }> = [];
  let tokens = 0;
  const rows = yield* liveTexts;
  for (const { seq, text } of rows) {
    const { counts, length } = textTerms(text);
    tokens += length;
    for (const [term, tf] of counts) expected.push({ term, row: seq, tf, len: length });
  }
  const order = (a: { term: string; row: number }, b: { term: string; row: number }) =>
    a.row - b.row || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
  return {
    stored: { postings: [...stored].sort(order), docs: scope?.docs ?? 0, tokens: scope?.tokens ?? 0 },
    expected: { postings: expected.sort(order), docs: rows.length, tokens },
  };
}

const liveMemoryTexts = (agentId: string) =>
  all<{ seq: number; text: string }>(
    portable('SELECT seq, content AS text FROM memories WHERE agent_id = ? AND is_deleted = 0', agentId),
  );

describe.each(BACKENDS)('memory writer contract: $name$skip', ({ open, skip }) => {
  if (skip) {
    it.skip('needs a PostgreSQL server', () => {});
    return;
  }
  let db: MemoryBackend;
  let deps: MemoryWriteDeps;
  beforeAll(async () => {
    db = await open();
    deps = writerDeps(db);
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });

  it('creates with scoped dedup: same content in one scope is one memory, another scope gets its own', async () => {
    const first = await db.write((t) =>
      createMemoriesProgram(t, deps, [memory('d1', 'The kettle is blue.'), memory('d1', 'The kettle is blue.')], NOW),
    );
    expect(first[0]?.deduped).toBe(false);
    expect(first[1]).toEqual({ id: first[0]?.id, deduped: true });
    const again = await db.write((t) => createMemoriesProgram(t, deps, [memory('d1', '  the KETTLE is blue. ')], NOW));
    expect(again).toEqual([{ id: first[0]?.id, deduped: true }]);
    const other = await db.write((t) => createMemoriesProgram(t, deps, [memory('d2', 'The kettle is blue.')], NOW));
    expect(other[0]?.deduped).toBe(false);
    expect(other[0]?.id).not.toBe(first[0]?.id);
    expect(await db.read(() => countRows('memories', 'd1'))).toBe(1);
    expect(await db.read(() => countRows('memory_history', 'd1'))).toBe(1);
    const row = await db.read(() => findMemoryProgram('d1', first[0]?.id as string));
    expect(row).toMatchObject({
      content: 'The kettle is blue.',
      agent_id: 'd1',
      is_deleted: 0,
      pinned: 0,
      importance: 0.5,
    });
    expect(typeof row?.seq).toBe('number');
    expect(typeof row?.created_at).toBe('number');
  });

  it('one call of many writes what one call per memory writes: rows, dedup, history, vectors, text index', async () => {
    // 41 inputs cross the 16/8/4/2/1 statement sizes: equal contents within the call (also in
    // different statements), content live before the call, vectors on some, and a second scope.
    const contents = Array.from({ length: 35 }, (_, i) => `Batch memory ${i} about topic ${i % 7}.`);
    const inputs = (agentId: string) => [
      ...contents.map((c, i) =>
        memory(
          agentId,
          c,
          i % 3 === 0 ? {} : { embedding: { model: 'toy', vector: new Float32Array([i, 1, -i, 0.5]) } },
        ),
      ),
      memory(agentId, contents[2] as string), // equal to the 3rd, same statement
      memory(agentId, ` ${(contents[20] as string).toUpperCase()} `), // equal to the 21st, another statement
      memory(agentId, 'Live before the call.'),
      memory(`${agentId}-other`, contents[5] as string, { embedding: { model: 'toy', vector: new Float32Array(4) } }),
      memory(agentId, 'Last one.', { embedding: { model: 'toy', vector: new Float32Array([1, 2, 3, 4]) } }),
      memory(agentId, 'Last one.'),
    ];
    const results: Array<Array<{ id: string; deduped: boolean }>> = [];
    for (const [agentId, batched] of [
      ['bm', true],
      ['bo', false],
    ] as const) {
      await db.write((t) => createMemoriesProgram(t, deps, [memory(agentId, 'Live before the call.')], NOW));
      const all = inputs(agentId);
      if (batched) results.push(await db.write((t) => createMemoriesProgram(t, deps, all, NOW)));
      else {
        const one: Array<{ id: string; deduped: boolean }> = [];
        for (const input of all) one.push(...(await db.write((t) => createMemoriesProgram(t, deps, [input], NOW))));
        results.push(one);
      }
    }
    const [many, single] = results as [
      Array<{ id: string; deduped: boolean }>,
      Array<{ id: string; deduped: boolean }>,
    ];
    // The same memories deduped, each to the memory of the same position (or to the one live before).
    const shape = async (agentId: string, created: Array<{ id: string; deduped: boolean }>) => {
      const rows = await db.read(() =>
        all<{ id: string; agent_id: string; content: string; embedding_model: string | null }>(
          portable(
            'SELECT id, agent_id, content, embedding_model FROM memories WHERE agent_id IN (?, ?) ORDER BY seq',
            agentId,
            `${agentId}-other`,
          ),
        ),
      );
      const position = new Map(rows.map((r, i) => [r.id, i]));
      const history = await db.read(() =>
        all<{ memory_id: string; event: string; new_content: string }>(
          portable(
            'SELECT memory_id, event, new_content FROM memory_history WHERE agent_id IN (?, ?) ORDER BY seq',
            agentId,
            `${agentId}-other`,
          ),
        ),
      );
      const vectors = await db.read(() =>
        all<{ source_id: string; vector: Buffer }>(
          portable(
            'SELECT source_id, vector FROM embeddings WHERE agent_id IN (?, ?) ORDER BY seq',
            agentId,
            `${agentId}-other`,
          ),
        ),
      );
      return {
        created: created.map((c) => [position.get(c.id), c.deduped]),
        rows: rows.map((r) => [r.agent_id.replace(agentId, ''), r.content, r.embedding_model]),
        history: history.map((h) => [position.get(h.memory_id), h.event, h.new_content]),
        vectors: vectors.map((v) => [position.get(v.source_id), [...blobToVector(v.vector)]]),
      };
    };
    const batchedShape = await shape('bm', many);
    const liveBefore = await db.read(() =>
      get<{ id: string }>(portable('SELECT id FROM memories WHERE agent_id = ? ORDER BY seq', 'bm')),
    );
    expect(batchedShape).toEqual(await shape('bo', single));
    expect(many.filter((c) => c.deduped)).toEqual([
      { id: many[2]?.id, deduped: true },
      { id: many[20]?.id, deduped: true },
      { id: liveBefore?.id, deduped: true },
      { id: many[39]?.id, deduped: true },
    ]);
    // 1 + 35 + 1 rows in this scope (the other scope has its one), 22 + 1 + 1 vectors.
    expect(batchedShape.rows).toHaveLength(38);
    expect(batchedShape.vectors).toHaveLength(25);
    const text = await db.read(() => textIndexState('memory', 'bm', liveMemoryTexts('bm')));
    expect(text.stored).toEqual(text.expected);
    expect(text.stored.docs).toBe(37);
    if (db.vectorAvailable) {
      // The vec0 index holds and counts every new vector, in each scope's partition.
      const indexed = await db.read(() =>
        all<{ agent_id: string; n: number }>(
          portable(
            'SELECT agent_id, sum(vectors) AS n FROM vector_partitions WHERE agent_id IN (?, ?) GROUP BY agent_id ORDER BY agent_id',
            'bm',
            'bm-other',
          ),
        ),
      );
      expect(indexed).toEqual([
        { agent_id: 'bm', n: 24 },
        { agent_id: 'bm-other', n: 1 },
      ]);
      const table = (await db.read(() => get<{ t: string }>(portable('SELECT table_name AS t FROM vector_indexes'))))
        ?.t;
      const mirrored = await db.read(() =>
        get<{ n: number }>(portable(`SELECT count(*) AS n FROM ${table} WHERE agent_id = ?`, 'bm')),
      );
      expect(mirrored?.n).toBe(24);
    }
  });

  it('writes every field given, links, the vector (bytea/blob round trip) and the live count', async () => {
    const vector = new Float32Array([0.25, -1, 3.5, 0]);
    const [created] = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('f1', 'Dana prefers window seats.', {
            type: 'preference',
            importance: 0.9,
            confidence: 0.4,
            project: 'kestrel',
            tags: ['travel', 'seats'],
            who: 'dana',
            pinned: true,
            expiresAt: NOW + 1000,
            linkedEntities: [{ type: 'contact', refId: '7', label: 'Dana  Whitfield' }],
            embedding: { model: 'toy', vector },
          }),
        ],
        NOW,
      ),
    );
    const id = created?.id as string;
    const row = await db.read(() => findMemoryProgram('f1', id));
    expect(row).toMatchObject({
      type: 'preference',
      importance: 0.9,
      confidence: 0.4,
      project: 'kestrel',
      tags: '["travel","seats"]',
      who: 'dana',
      pinned: 1,
      expires_at: NOW + 1000,
      embedding_model: 'toy',
    });
    const links = await db.read(() =>
      all(portable('SELECT ref_type, ref_id, label, label_key FROM memory_links WHERE memory_id = ?', id)),
    );
    expect(links).toEqual([
      { ref_type: 'contact', ref_id: '7', label: 'Dana  Whitfield', label_key: 'dana whitfield' },
    ]);
    const stored = await db.read(() =>
      get<{ vector: Buffer; dimensions: number }>(
        portable("SELECT vector, dimensions FROM embeddings WHERE source_type = 'memory' AND source_id = ?", id),
      ),
    );
    expect(stored?.dimensions).toBe(4);
    expect([...blobToVector(stored?.vector as Buffer)]).toEqual([...vector]);
    const counts = await db.read(() =>
      all(portable('SELECT kind, model, recalled, n FROM memory_counts WHERE agent_id = ? ORDER BY kind', 'f1')),
    );
    expect(counts).toEqual([
      { kind: 'expiring', model: '', recalled: 0, n: 1 },
      { kind: 'live', model: 'toy', recalled: 0, n: 1 },
    ]);
  });

  it('changes content: history keeps both, a cold copy, old derived rows go, the text index follows', async () => {
    const [created] = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [memory('c1', 'Standup moved to Tuesday.', { embedding: { model: 'toy', vector: new Float32Array([1, 0]) } })],
        NOW,
      ),
    );
    const id = created?.id as string;
    await db.write(() => insertHintsProgram(db.dialect, 'c1', id, ['when is standup?', 'which day is standup?'], NOW));
    const after = await db.write((t) =>
      changeMemoryProgram(
        t,
        deps,
        { agentId: 'c1', id, content: prepareContent('Standup moved to Thursday.'), importance: 0.8, audit: {} },
        NOW + 5,
      ),
    );
    expect(after).toMatchObject({
      content: 'Standup moved to Thursday.',
      importance: 0.8,
      update_count: 1,
      embedding_model: null,
    });
    const history = await db.read(() => listHistoryProgram('c1', id));
    expect(history.map((h) => [h.event, h.old_content, h.new_content])).toEqual([
      ['created', null, 'Standup moved to Tuesday.'],
      ['updated', 'Standup moved to Tuesday.', 'Standup moved to Thursday.'],
    ]);
    expect(await db.read(() => countRows('memories_cold', 'c1'))).toBe(1);
    expect(await db.read(() => countRows('embeddings', 'c1'))).toBe(0);
    expect(await db.read(() => countRows('memory_hints', 'c1'))).toBe(0);
    expect((await db.read(() => search('c1', ['thursday']))).map((h) => h.id)).toEqual([id]);
    expect(await db.read(() => search('c1', ['tuesday']))).toEqual([]);
    for (const corpus of ['memory', 'hint'] as const) {
      const texts =
        corpus === 'memory'
          ? liveMemoryTexts('c1')
          : all<{ seq: number; text: string }>(
              portable('SELECT seq, hint AS text FROM memory_hints WHERE agent_id = ?', 'c1'),
            );
      const state = await db.read(() => textIndexState(corpus, 'c1', texts));
      expect(state.stored).toEqual(state.expected);
    }
    // Content held by another live memory of the scope is a conflict, and changes nothing.
    await db.write((t) => createMemoriesProgram(t, deps, [memory('c1', 'Lunch is at noon.')], NOW));
    const error = await db
      .write((t) =>
        changeMemoryProgram(
          t,
          deps,
          { agentId: 'c1', id, content: prepareContent('Lunch is at noon.'), audit: {} },
          NOW,
        ),
      )
      .catch((e: unknown) => e);
    expect(isMemoryError(error, 'CONFLICT')).toBe(true);
    expect((await db.read(() => findMemoryProgram('c1', id)))?.content).toBe('Standup moved to Thursday.');
  });

  it('forgets and recovers with history rows; a forgotten memory leaves search, counts and mentions', async () => {
    await db.write(() =>
      run(
        portable(
          `INSERT INTO entities (id, agent_id, name, canonical_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
          'e-orla',
          'g1',
          'Orla',
          'orla',
          NOW,
          NOW,
        ),
      ),
    );
    const [created] = await db.write((t) =>
      createMemoriesProgram(t, deps, [memory('g1', 'Orla owns the okapi farm.')], NOW),
    );
    const id = created?.id as string;
    const mentions = () =>
      db.read(() => get<{ n: number }>(portable("SELECT mentions AS n FROM entities WHERE id = 'e-orla'")));
    expect(await mentions()).toEqual({ n: 1 });
    expect(
      await db.write((t) => forgetMemoryProgram(t, deps, { agentId: 'g1', id, audit: { reason: 'wrong' } }, NOW + 1)),
    ).toBe(true);
    expect(await db.write((t) => forgetMemoryProgram(t, deps, { agentId: 'g1', id, audit: {} }, NOW + 2))).toBe(false);
    expect(await db.read(() => findMemoryProgram('g1', id))).toBeUndefined();
    expect(await db.read(() => findMemoryProgram('g1', id, { includeDeleted: true }))).toMatchObject({
      is_deleted: 1,
      deleted_at: NOW + 1,
    });
    expect(await db.read(() => search('g1', ['okapi']))).toEqual([]);
    expect(await mentions()).toEqual({ n: 0 });
    const counts = () =>
      db.read(() =>
        all(portable('SELECT kind, n FROM memory_counts WHERE agent_id = ? AND n <> 0 ORDER BY kind', 'g1')),
      );
    expect(await counts()).toEqual([{ kind: 'forgotten', n: 1 }]);
    // The same content written while it is forgotten blocks recovery (it would duplicate it).
    const [twin] = await db.write((t) =>
      createMemoriesProgram(t, deps, [memory('g1', 'Orla owns the okapi farm.')], NOW + 3),
    );
    const blocked = await db
      .write((t) => recoverMemoryProgram(t, deps, { agentId: 'g1', id, windowMs: 1000, audit: {} }, NOW + 4))
      .catch((e: unknown) => e);
    expect(isMemoryError(blocked, 'CONFLICT')).toBe(true);
    await db.write((t) => forgetMemoryProgram(t, deps, { agentId: 'g1', id: twin?.id as string, audit: {} }, NOW + 5));
    const back = await db.write((t) =>
      recoverMemoryProgram(t, deps, { agentId: 'g1', id, windowMs: 1000, audit: { reason: 'oops' } }, NOW + 6),
    );
    expect(back).toMatchObject({ id, is_deleted: 0, deleted_at: null });
    expect((await db.read(() => search('g1', ['okapi']))).map((h) => h.id)).toEqual([id]);
    expect(await mentions()).toEqual({ n: 1 });
    expect(await counts()).toEqual([
      { kind: 'forgotten', n: 1 },
      { kind: 'live', n: 1 },
    ]);
    const events = (await db.read(() => listHistoryProgram('g1', id))).map((h) => [h.event, h.reason]);
    expect(events).toEqual([
      ['created', null],
      ['deleted', 'wrong'],
      ['recovered', 'oops'],
    ]);
    const state = await db.read(() => textIndexState('memory', 'g1', liveMemoryTexts('g1')));
    expect(state.stored).toEqual(state.expected);
    // Out of the recovery window: refused.
    await db.write((t) => forgetMemoryProgram(t, deps, { agentId: 'g1', id, audit: {} }, NOW + 10));
    const late = await db
      .write((t) => recoverMemoryProgram(t, deps, { agentId: 'g1', id, windowMs: 1000, audit: {} }, NOW + 5000))
      .catch((e: unknown) => e);
    expect(isMemoryError(late, 'CONFLICT')).toBe(true);
  });

  it('reads are scoped: another agent’s memory reads as missing everywhere', async () => {
    const [mine] = await db.write((t) => createMemoriesProgram(t, deps, [memory('s1', 'Secret okapi recipe.')], NOW));
    const id = mine?.id as string;
    expect(await db.read(() => findMemoryProgram('s2', id))).toBeUndefined();
    expect(await db.read(() => findMemoryProgram('s2', id, { includeDeleted: true }))).toBeUndefined();
    expect(await db.read(() => listHistoryProgram('s2', id))).toEqual([]);
    expect(await db.read(() => search('s2', ['okapi']))).toEqual([]);
    const page = await db.read(() => listMemoryPageProgram({ agentId: 's2', limit: 10, now: NOW }));
    expect(page).toEqual([]);
    const attempts: Array<(t: WriterTarget) => Program<unknown>> = [
      (t) => changeMemoryProgram(t, deps, { agentId: 's2', id, importance: 0.1, audit: {} }, NOW),
      (t) => forgetMemoryProgram(t, deps, { agentId: 's2', id, audit: {} }, NOW),
    ];
    for (const attempt of attempts) {
      const error = await db.write(attempt).catch((e: unknown) => e);
      expect(isMemoryError(error, 'NOT_FOUND')).toBe(true);
    }
    expect(
      await db.write((t) =>
        attachMemoryVectorProgram(
          t,
          deps,
          { agentId: 's2', id, contentHash: 'x' },
          { model: 'toy', vector: new Float32Array([1]) },
          NOW,
        ),
      ),
    ).toBe(false);
    expect((await db.read(() => findMemoryProgram('s1', id)))?.importance).toBe(0.5);
  });

  it('lists a scope newest first with filters and keyset pages', async () => {
    const created = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [
          memory('l1', 'one', { createdAt: NOW - 3, tags: ['a'] }),
          memory('l1', 'two', { createdAt: NOW - 2, type: 'decision', tags: ['a', 'b'] }),
          memory('l1', 'three', { createdAt: NOW - 1, tags: ['b'] }),
          memory('l1', 'gone soon', { createdAt: NOW - 1, expiresAt: NOW - 1 }),
        ],
        NOW,
      ),
    );
    const ids = created.map((c) => c.id);
    const page = (q: Partial<Parameters<typeof listMemoryPageProgram>[0]>) =>
      db
        .read(() => listMemoryPageProgram({ agentId: 'l1', limit: 10, now: NOW, ...q }))
        .then((rows) => rows.map((r) => r.content));
    expect(await page({})).toEqual(['three', 'two', 'one']);
    expect(await page({ includeForgotten: true })).toEqual(['gone soon', 'three', 'two', 'one']);
    expect(await page({ tags: ['a', 'b'] })).toEqual(['two']);
    expect(await page({ types: ['decision'] })).toEqual(['two']);
    expect(await page({ since: NOW - 2, until: NOW - 1 })).toEqual(['two']);
    const first = await db.read(() => listMemoryPageProgram({ agentId: 'l1', limit: 2, now: NOW }));
    const last = first[first.length - 1];
    expect(
      await page({ limit: 2, after: { createdAt: last?.created_at as number, seq: last?.seq as number } }),
    ).toEqual(['one']);
    expect(ids).toHaveLength(4);
  });

  it('attaches a vector to a memory written without one, replacing other models, unless the content moved on', async () => {
    const [m] = await db.write((t) =>
      createMemoriesProgram(
        t,
        deps,
        [memory('v1', 'Vectors come later.', { embedding: { model: 'old', vector: new Float32Array([1, 2]) } })],
        NOW,
      ),
    );
    const id = m?.id as string;
    const row = await db.read(() => findMemoryProgram('v1', id));
    const hash = row?.content_hash as string;
    const attached = await db.write((t) =>
      attachMemoryVectorProgram(
        t,
        deps,
        { agentId: 'v1', id, contentHash: hash },
        { model: 'new', vector: new Float32Array([3, 4, 5]) },
        NOW + 1,
      ),
    );
    expect(attached).toBe(true);
    const models = await db.read(() =>
      all(
        portable(
          "SELECT model, dimensions FROM embeddings WHERE source_type = 'memory' AND source_id = ? ORDER BY model",
          id,
        ),
      ),
    );
    expect(models).toEqual([{ model: 'new', dimensions: 3 }]);
    expect((await db.read(() => findMemoryProgram('v1', id)))?.embedding_model).toBe('new');
    const stale = await db.write((t) =>
      attachMemoryVectorProgram(
        t,
        deps,
        { agentId: 'v1', id, contentHash: 'not-the-hash' },
        { model: 'x', vector: new Float32Array([1]) },
        NOW,
      ),
    );
    expect(stale).toBe(false);
    const bad = await db
      .write((t) =>
        attachMemoryVectorProgram(
          t,
          deps,
          { agentId: 'v1', id, contentHash: hash },
          { model: 'nan', vector: new Float32Array([Number.NaN]) },
          NOW,
        ),
      )
      .catch((e: unknown) => e);
    expect(isMemoryError(bad, 'PROVIDER_ERROR')).toBe(true);
  });

  it('runs the host hook as a program inside the write, on every path that makes content live', async () => {
    const seen: string[] = [];
    const hooked: MemoryWriteDeps = {
      ...deps,
      onContentLiveProgram: function* (live) {
        seen.push(`${live.cause}:${live.id}`);
        // The hook writes in the same transaction (the engine queues derived work here).
        yield* insertHintsProgram(db.dialect, live.agentId, live.id, [`hook ${live.cause}`], NOW);
      },
    };
    const [m] = await db.write((t) => createMemoriesProgram(t, hooked, [memory('k1', 'Hooked memory.')], NOW));
    const id = m?.id as string;
    await db.write((t) =>
      changeMemoryProgram(
        t,
        hooked,
        { agentId: 'k1', id, content: prepareContent('Hooked memory, changed.'), audit: {} },
        NOW,
      ),
    );
    await db.write((t) => forgetMemoryProgram(t, hooked, { agentId: 'k1', id, audit: {} }, NOW));
    await db.write((t) => recoverMemoryProgram(t, hooked, { agentId: 'k1', id, windowMs: 10, audit: {} }, NOW));
    expect(seen).toEqual([`created:${id}`, `replaced:${id}`, `recovered:${id}`]);
    // Each content change dropped the previous hook's hint; the last one is there.
    const hints = await db.read(() => all(portable('SELECT hint FROM memory_hints WHERE memory_id = ?', id)));
    expect(hints).toEqual([{ hint: 'hook recovered' }]);
    const state = await db.read(() =>
      textIndexState(
        'hint',
        'k1',
        all<{ seq: number; text: string }>(
          portable('SELECT seq, hint AS text FROM memory_hints WHERE agent_id = ?', 'k1'),
        ),
      ),
    );
    expect(state.stored).toEqual(state.expected);
    expect(state.stored.docs).toBe(1);
  });

  it('an executor-only hook runs on SQLite and is refused on PostgreSQL, rolling the write back', async () => {
    const calls: string[] = [];
    const legacy: MemoryWriteDeps = { ...deps, onContentLive: (_sql, live) => calls.push(live.id) };
    const result = await db
      .write((t) => createMemoriesProgram(t, legacy, [memory('k2', 'Executor hook.')], NOW))
      .catch((e: unknown) => e);
    if (db.dialect === 'sqlite') {
      expect(calls).toHaveLength(1);
      expect(await db.read(() => countRows('memories', 'k2'))).toBe(1);
    } else {
      expect(isMemoryError(result, 'STORAGE_ERROR')).toBe(true);
      expect((result as Error).message).toContain('onContentLiveProgram');
      expect(calls).toEqual([]);
      expect(await db.read(() => countRows('memories', 'k2'))).toBe(0);
    }
  });

  it('keeps hint postings in step on insert and delete', async () => {
    const [m] = await db.write((t) => createMemoriesProgram(t, deps, [memory('h1', 'The gate code is 4417.')], NOW));
    const id = m?.id as string;
    expect(
      await db.write(() =>
        insertHintsProgram(db.dialect, 'h1', id, ['what is the gate code?', 'what is the gate code?'], NOW),
      ),
    ).toBe(1);
    const ranked = await db.read(() => rankScopedTextProgram('hint', 'h1', ['gate']));
    expect(ranked.rows).toHaveLength(1);
    const found = await db.read(() => searchHintsProgram('h1', { tokens: ['gate', 'code'], phrases: [] } as never, 5));
    expect(found.map((h) => h.memoryId)).toEqual([id]);
    expect(found[0]?.bm25).toBeLessThan(0);
    expect(await db.read(() => searchHintsProgram('h2', { tokens: ['gate'], phrases: [] } as never, 5))).toEqual([]);
    expect(await db.write(() => deleteHintsProgram(db.dialect, 'h1', id))).toBe(1);
    expect((await db.read(() => rankScopedTextProgram('hint', 'h1', ['gate']))).rows).toEqual([]);
    const scope = await db.read(() =>
      get(portable("SELECT docs, tokens FROM text_scopes WHERE corpus = 'hint' AND agent_id = ?", 'h1')),
    );
    expect(scope).toEqual({ docs: 0, tokens: 0 });
  });
});
