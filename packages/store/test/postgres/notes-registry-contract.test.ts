import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { all, get, type Program, portable, run } from '../../src/program/program.js';
import {
  findApiTokenProgram,
  insertApiTokenProgram,
  listApiTokensProgram,
  revokeApiTokenProgram,
} from '../../src/repositories/api-tokens.js';
import { findLiveLinkedMemoriesProgram } from '../../src/repositories/linked-memories.js';
import { replaceMemoryLinksProgram } from '../../src/repositories/links.js';
import { insertMemoryRowProgram, type NewLiveMemory } from '../../src/repositories/memories.js';
import {
  findLinkedNotesProgram,
  findNoteProgram,
  findNotesByIdProgram,
  findNotesBySeqProgram,
  insertNoteEventProgram,
  insertNoteProgram,
  listNoteEventsProgram,
  listNotePageProgram,
  replaceNoteLinksProgram,
  updateNoteProgram,
} from '../../src/repositories/notes.js';
import { countStaleActiveNotesProgram, staleActiveNotesProgram } from '../../src/repositories/notes-reap.js';
import {
  nearestNoteVectorsProgram,
  noteVectorCosinesProgram,
  rankNotesByTextProgram,
  upsertNoteVectorProgram,
} from '../../src/repositories/notes-search.js';
import {
  countRegistryCategoriesProgram,
  deleteRegistryCategoryProgram,
  findRegistryCategoryByNameProgram,
  findRegistryCategoryOwnerProgram,
  findRegistryCategoryProgram,
  insertRegistryCategoryProgram,
  insertRegistryEventProgram,
  listRegistryCategoriesProgram,
  listRegistryEventsProgram,
  updateRegistryCategoryProgram,
} from '../../src/repositories/registry-categories.js';
import {
  countCategoryLinksByKindProgram,
  deleteRegistryLinkProgram,
  insertRegistryLinkProgram,
  listCategoryLinksProgram,
  listObjectCategoriesProgram,
  moveCategoryLinksProgram,
  partitionCategoryObjectsProgram,
} from '../../src/repositories/registry-links.js';
import { findRegistryObjectProgram, findRegistryObjectTextProgram } from '../../src/repositories/registry-objects.js';
import type { NoteRow } from '../../src/schema/notes.js';
import { textTerms } from '../../src/text-terms.js';
import { postgresTestServer } from '../support/postgres.js';
import { type MemoryBackend, openPgliteBackend, openServerBackend, openSqliteBackend } from './memory-backends.js';

// Working notes, the entity registry and API tokens at the store level: one contract for SQLite,
// PGlite and the run's PostgreSQL server. Each test uses its own agents, so a backend's tests share
// one database.

const NOW = Date.UTC(2026, 0, 1);
const server = await postgresTestServer();
const BACKENDS = [
  { label: 'sqlite', open: openSqliteBackend, skip: false },
  { label: 'postgres (PGlite)', open: openPgliteBackend, skip: false },
  {
    label: `postgres (server)${server.available ? '' : ` (skipped: ${server.reason})`}`,
    open: openServerBackend,
    skip: !server.available,
  },
];

let counter = 0;
const nextId = (prefix: string) => `${prefix}-${(++counter).toString().padStart(6, '0')}`;

function newNote(agentId: string, title: string, content: string, extra: Partial<NoteRow> = {}) {
  return {
    id: nextId('note'),
    agent_id: agentId,
    title,
    content,
    tags: '[]',
    status: 'active' as const,
    linked_entities: '[]',
    created_at: NOW,
    updated_at: NOW,
    resolved_at: null,
    archived_at: null,
    ...extra,
  };
}

/** The notes' text index of a scope as stored, and as recomputed from the notes' text. */
function* noteIndexState(agentId: string) {
  const scope = yield* get<{ scope: number; docs: number; tokens: number }>(
    portable("SELECT scope, docs, tokens FROM note_text_scopes WHERE corpus = 'note' AND agent_id = ?", agentId),
  );
  const stored = scope
    ? yield* all<{ term: string; row: number; tf: number; len: number }>(
        portable('SELECT term, row, tf, len FROM note_text_postings WHERE scope = ?', scope.scope),
      )
    : [];
  const notes = yield* all<{ seq: number; title: string; content: string }>(
    portable('SELECT seq, title, content FROM notes WHERE agent_id = ?', agentId),
  );
  const expected: typeof stored = [];
  let tokens = 0;
  for (const n of notes) {
    const { counts, length } = textTerms(`${n.title}\n${n.content}`);
    tokens += length;
    for (const [term, tf] of counts) expected.push({ term, row: n.seq, tf, len: length });
  }
  const order = (a: { term: string; row: number }, b: { term: string; row: number }) =>
    a.row - b.row || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0);
  return {
    stored: { postings: [...stored].sort(order), docs: scope?.docs ?? 0, tokens: scope?.tokens ?? 0 },
    expected: { postings: expected.sort(order), docs: notes.length, tokens },
  };
}

const newMemory = (agentId: string, content: string, extra: Partial<NewLiveMemory> = {}): NewLiveMemory => {
  const id = nextId('mem');
  return {
    id,
    agent_id: agentId,
    type: 'fact',
    content,
    normalized_content: content,
    content_hash: id,
    tags: '[]',
    linked_entities: '[]',
    confidence: 1,
    importance: 0.5,
    pinned: 0,
    created_at: NOW,
    updated_at: NOW,
    ...extra,
  };
};

const unit = (values: number[]) => {
  const n = Math.hypot(...values);
  return new Float32Array(values.map((v) => v / n));
};

describe.each(BACKENDS)('notes, registry and tokens contract: $label', ({ open, skip }) => {
  if (skip) {
    it.skip('needs a PostgreSQL server', () => {});
    return;
  }
  let db: MemoryBackend;
  beforeAll(async () => {
    db = await open();
  }, 120_000);
  afterAll(async () => {
    await db?.close();
  });
  const write = <R>(program: () => Program<R>) => db.write(() => program());

  it('writes, reads and updates notes; the text index follows every write', async () => {
    const a = newNote('n1', 'Renewal call', 'Acme wants the renewal quote by Friday');
    const b = newNote('n1', 'Groceries', 'buy oat milk and coffee');
    const created = await write(function* () {
      const first = yield* insertNoteProgram(db.dialect, a);
      const second = yield* insertNoteProgram(db.dialect, b);
      yield* insertNoteEventProgram({
        id: nextId('ev'),
        note_id: first.id,
        agent_id: 'n1',
        event: 'created',
        actor: 'n1',
        actor_type: 'agent',
        reason: null,
        before_json: null,
        after_json: '{}',
        created_at: NOW,
      });
      return [first, second];
    });
    expect(created[0]).toMatchObject({ id: a.id, agent_id: 'n1', status: 'active', tags: '[]' });
    expect(typeof created[0]?.seq).toBe('number');
    expect(await db.read(() => findNoteProgram('n1', a.id))).toEqual(created[0]);
    expect(await db.read(() => findNoteProgram('other', a.id))).toBeUndefined();
    const fresh = await db.read(() => noteIndexState('n1'));
    expect(fresh.stored).toEqual(fresh.expected);
    expect(fresh.stored.docs).toBe(2);

    // Text change: old terms leave the index, new ones enter; a status guard that does not match changes nothing.
    const updated = await write(() =>
      updateNoteProgram(db.dialect, 'n1', a.id, 'active', {
        content: 'Acme signed, invoice sent',
        updated_at: NOW + 1,
      }),
    );
    expect(updated).toMatchObject({ content: 'Acme signed, invoice sent', updated_at: NOW + 1 });
    const guarded = await write(() =>
      updateNoteProgram(db.dialect, 'n1', a.id, 'resolved', { status: 'archived', updated_at: NOW + 2 }),
    );
    expect(guarded).toBeUndefined();
    const state = await db.read(() => noteIndexState('n1'));
    expect(state.stored).toEqual(state.expected);
    expect(state.stored.docs).toBe(2);

    const ranked = await db.read(() => rankNotesByTextProgram('n1', ['invoice'], 5));
    expect(ranked.map((h) => h.row.id)).toEqual([a.id]);
    expect(await db.read(() => rankNotesByTextProgram('n1', ['friday'], 5))).toEqual([]);
    const events = await db.read(() => listNoteEventsProgram('n1', a.id));
    expect(events.map((e) => e.event)).toEqual(['created']);
    expect(await db.read(() => listNoteEventsProgram('other', a.id))).toEqual([]);
  });

  it('ranks notes by scoped BM25: the same scores on every backend, untouched by other agents', async () => {
    await write(function* () {
      yield* insertNoteProgram(db.dialect, newNote('r1', 'quarterly budget', 'budget review with finance'));
      yield* insertNoteProgram(db.dialect, newNote('r1', 'offsite', 'plan the offsite agenda and budget'));
      yield* insertNoteProgram(db.dialect, newNote('r1', 'misc', 'nothing relevant here'));
    });
    const alone = await db.read(() => rankNotesByTextProgram('r1', ['budget', 'finance'], 10));
    expect(alone.map((h) => h.row.title)).toEqual(['quarterly budget', 'offsite']);
    // Scores are the agent's own: the same numbers whatever another agent writes.
    await write(function* () {
      for (let i = 0; i < 5; i++)
        yield* insertNoteProgram(db.dialect, newNote('r2', `budget ${i}`, 'budget budget finance'));
    });
    const after = await db.read(() => rankNotesByTextProgram('r1', ['budget', 'finance'], 10));
    expect(after.map((h) => h.score)).toEqual(alone.map((h) => h.score));
    // Fixed numbers: SQLite and PostgreSQL compute the same floats from the same postings.
    expect(after.map((h) => Number(h.score.toFixed(9)))).toEqual([1.593518324, 0.428735018]);
    // `keep` filters before the cut, `within` scores only the given rows.
    const kept = await db.read(() => rankNotesByTextProgram('r1', ['budget'], 1, (row) => row.title === 'offsite'));
    expect(kept.map((h) => h.row.title)).toEqual(['offsite']);
    const offsite = after[1]?.row as NoteRow;
    const within = await db.read(() =>
      rankNotesByTextProgram('r1', ['budget', 'finance'], 10, undefined, [offsite.seq]),
    );
    expect(within).toEqual([{ row: offsite, score: after[1]?.score }]);
  });

  it('pages notes newest first by status, entity and tags; finds them by seq, id and link', async () => {
    const rows = await write(function* () {
      const out: NoteRow[] = [];
      for (let i = 0; i < 5; i++) {
        const note = yield* insertNoteProgram(
          db.dialect,
          newNote('p1', `note ${i}`, `body ${i}`, {
            tags: JSON.stringify(i % 2 === 0 ? ['red', 'blue'] : ['red']),
            status: i === 4 ? 'resolved' : 'active',
          }),
        );
        if (i < 3) yield* replaceNoteLinksProgram('p1', note.id, [{ type: 'contact', refId: 'c1', label: 'Ann' }]);
        out.push(note);
      }
      // Repeated references are one link row.
      const last = out[4] as NoteRow;
      yield* replaceNoteLinksProgram('p1', last.id, [
        { type: 'contact', refId: 'c2' },
        { type: 'contact', refId: 'c2' },
      ]);
      return out;
    });
    const ids = (page: NoteRow[]) => page.map((r) => r.id);
    const [n0, n1, n2, n3, n4] = rows.map((r) => r.id);
    expect(ids(await db.read(() => listNotePageProgram({ agentId: 'p1', limit: 10 })))).toEqual([n4, n3, n2, n1, n0]);
    expect(ids(await db.read(() => listNotePageProgram({ agentId: 'p1', status: 'active', limit: 10 })))).toEqual([
      n3,
      n2,
      n1,
      n0,
    ]);
    expect(ids(await db.read(() => listNotePageProgram({ agentId: 'p1', tags: ['blue', 'red'], limit: 10 })))).toEqual([
      n4,
      n2,
      n0,
    ]);
    const cursor = rows[2]?.seq;
    expect(ids(await db.read(() => listNotePageProgram({ agentId: 'p1', beforeSeq: cursor, limit: 1 })))).toEqual([n1]);
    const entity = { type: 'contact', refId: 'c1' };
    expect(ids(await db.read(() => listNotePageProgram({ agentId: 'p1', entity, limit: 10 })))).toEqual([n2, n1, n0]);
    expect(
      ids(
        await db.read(() =>
          listNotePageProgram({ agentId: 'p1', entity, tags: ['blue'], beforeSeq: cursor, limit: 10 }),
        ),
      ),
    ).toEqual([n0]);
    expect(
      ids(await db.read(() => listNotePageProgram({ agentId: 'p1', entity, status: 'resolved', limit: 10 }))),
    ).toEqual([]);
    expect(await db.read(() => listNotePageProgram({ agentId: 'other', entity, limit: 10 }))).toEqual([]);

    const seqs = rows.map((r) => r.seq);
    expect(ids(await db.read(() => findNotesBySeqProgram('p1', seqs))).sort()).toEqual([n0, n1, n2, n3, n4].sort());
    expect(await db.read(() => findNotesBySeqProgram('other', seqs))).toEqual([]);
    expect(ids(await db.read(() => findNotesByIdProgram('p1', [n1 as string, 'nope']))).sort()).toEqual([n1]);
    expect(await db.read(() => findNotesByIdProgram('p1', []))).toEqual([]);
    const links = await db.read(() =>
      findLinkedNotesProgram(
        'p1',
        [
          { type: 'contact', refId: 'c1' },
          { type: 'contact', refId: 'c2' },
        ],
        2,
      ),
    );
    expect(links).toHaveLength(3);
    expect(links.filter((l) => l.refId === 'c2')).toEqual([{ noteId: n4, refType: 'contact', refId: 'c2' }]);
  });

  it('stores note vectors (blob/bytea round trip) and finds the nearest exactly', async () => {
    const notes = await write(function* () {
      const out: NoteRow[] = [];
      for (const [i, v] of [
        [1, 0, 0],
        [0.9, 0.1, 0],
        [0, 1, 0],
      ].entries()) {
        const note = yield* insertNoteProgram(db.dialect, newNote('v1', `vec ${i}`, 'x'));
        yield* upsertNoteVectorProgram({
          noteId: note.id,
          agentId: 'v1',
          model: 'm',
          contentHash: 'h',
          vector: unit(v as number[]),
          now: NOW,
        });
        out.push(note);
      }
      return out;
    });
    const [a, b, c] = notes.map((n) => n.id) as [string, string, string];
    // Replacing a vector keeps one row.
    await write(() =>
      upsertNoteVectorProgram({
        noteId: c,
        agentId: 'v1',
        model: 'm',
        contentHash: 'h2',
        vector: unit([0, 0, 1]),
        now: NOW,
      }),
    );
    const q = { agentId: 'v1', model: 'm', query: unit([1, 0, 0]), vectorAvailable: db.vectorAvailable };
    const near = await db.read(() => nearestNoteVectorsProgram(q, 2));
    expect(near.map((h) => h.noteId)).toEqual([a, b]);
    expect(near[0]?.cosine).toBeCloseTo(1, 6);
    expect(near[1]?.cosine).toBeCloseTo(0.9 / Math.hypot(0.9, 0.1), 6);
    expect((await db.read(() => nearestNoteVectorsProgram(q, 5, [c]))).map((h) => h.noteId)).toEqual([c]);
    const cosines = await db.read(() => noteVectorCosinesProgram(q, [c, 'missing']));
    expect(cosines).toHaveLength(1);
    expect(cosines[0]?.cosine).toBeCloseTo(0, 6);
    expect(await db.read(() => nearestNoteVectorsProgram({ ...q, agentId: 'other' }, 5))).toEqual([]);
    expect(await db.read(() => nearestNoteVectorsProgram({ ...q, query: new Float32Array(3) }, 5))).toEqual([]);
    const stored = await db.read(() =>
      get<{ n: number }>(portable('SELECT count(*) AS n FROM note_vectors WHERE note_id = ?', c)),
    );
    expect(stored?.n).toBe(1);
  });

  it('finds stale active notes of every agent, oldest update first', async () => {
    const old = NOW - 10_000_000_000;
    const made = await write(function* () {
      const a = yield* insertNoteProgram(db.dialect, newNote('s1', 'old a', 'x', { updated_at: old + 2 }));
      const b = yield* insertNoteProgram(db.dialect, newNote('s2', 'old b', 'x', { updated_at: old + 1 }));
      yield* insertNoteProgram(db.dialect, newNote('s1', 'old resolved', 'x', { updated_at: old, status: 'resolved' }));
      yield* insertNoteProgram(db.dialect, newNote('s1', 'fresh', 'x', { updated_at: NOW }));
      return [a, b];
    });
    const before = old + 100;
    expect(await db.read(() => countStaleActiveNotesProgram(before))).toBe(2);
    expect((await db.read(() => staleActiveNotesProgram(before, 10))).map((r) => r.id)).toEqual([
      made[1]?.id,
      made[0]?.id,
    ]);
    expect(await db.read(() => staleActiveNotesProgram(before, 1))).toHaveLength(1);
  });

  it('keeps registry categories, links and events; merges move links; deleting an object drops its links', async () => {
    const cat = (id: string, name: string) => ({
      id,
      agent_id: 'g1',
      name,
      normalized_name: name.toLowerCase(),
      description: null,
      aliases_json: '[]',
      created_by: 'operator' as const,
      created_at: NOW,
      updated_at: NOW,
    });
    const note = await write(function* () {
      yield* insertRegistryCategoryProgram(cat('cat-a', 'Alpha'));
      yield* insertRegistryCategoryProgram(cat('cat-b', 'Beta'));
      return yield* insertNoteProgram(db.dialect, newNote('g1', 'linked note', 'x'));
    });
    const memory = newMemory('g1', 'linked memory');
    const memoryId = memory.id;
    await write(() => insertMemoryRowProgram(memory));
    const noteKey = { kind: 'note' as const, hostType: '', ref: note.id };
    const memoryKey = { kind: 'memory' as const, hostType: '', ref: memoryId };
    const hostKey = { kind: 'host' as const, hostType: 'contact', ref: 'c9' };
    const link = (categoryId: string, object: typeof noteKey | typeof memoryKey | typeof hostKey, now = NOW) =>
      insertRegistryLinkProgram({ agentId: 'g1', categoryId, object, createdBy: 'agent', now });
    const inserted = await write(function* () {
      const out = [yield* link('cat-a', noteKey), yield* link('cat-a', noteKey)];
      yield* link('cat-a', memoryKey, NOW + 1);
      yield* link('cat-a', hostKey, NOW + 2);
      yield* link('cat-b', hostKey);
      yield* insertRegistryEventProgram({
        agentId: 'g1',
        categoryId: 'cat-a',
        action: 'created',
        actor: { id: null, type: 'operator' },
        reason: null,
        before: undefined,
        after: { name: 'Alpha' },
        now: NOW,
      });
      return out;
    });
    expect(inserted).toEqual([true, false]);
    expect(await db.read(() => countRegistryCategoriesProgram('g1'))).toBe(2);
    expect(await db.read(() => findRegistryCategoryProgram('other', 'cat-a'))).toBeUndefined();
    expect(await db.read(() => findRegistryCategoryOwnerProgram('cat-a'))).toBe('g1');
    expect((await db.read(() => findRegistryCategoryByNameProgram('g1', 'beta')))?.id).toBe('cat-b');
    const listed = await db.read(() => listRegistryCategoriesProgram('g1', 10));
    expect(listed.map((c) => [c.id, c.object_count])).toEqual([
      ['cat-a', 3],
      ['cat-b', 1],
    ]);
    const byKind = await db.read(() => countCategoryLinksByKindProgram('g1', 'cat-a'));
    expect(byKind.sort((x, y) => x.object_kind.localeCompare(y.object_kind))).toEqual([
      { object_kind: 'host', n: 1 },
      { object_kind: 'memory', n: 1 },
      { object_kind: 'note', n: 1 },
    ]);
    expect(
      (await db.read(() => listCategoryLinksProgram('g1', 'cat-a', { limit: 10 }))).map((l) => l.object_kind),
    ).toEqual(['note', 'memory', 'host']);
    expect(
      (await db.read(() => listCategoryLinksProgram('g1', 'cat-a', { kind: 'memory', limit: 10 }))).map(
        (l) => l.object_ref,
      ),
    ).toEqual([memoryId]);
    expect((await db.read(() => listObjectCategoriesProgram('g1', hostKey))).map((c) => c.id)).toEqual([
      'cat-a',
      'cat-b',
    ]);
    const parts = await db.read(() => partitionCategoryObjectsProgram('g1', 'cat-a'));
    expect(parts).toEqual({ exclusive: [memoryKey, noteKey], shared: [hostKey] });
    expect(await db.read(() => findRegistryObjectProgram('g1', noteKey))).toEqual({
      status: 'live',
      pinned: false,
      text: 'linked note',
    });
    expect(await db.read(() => findRegistryObjectProgram('g1', memoryKey))).toEqual({
      status: 'live',
      pinned: false,
      text: 'linked memory',
    });
    expect(await db.read(() => findRegistryObjectProgram('other', noteKey))).toBeUndefined();
    expect(await db.read(() => findRegistryObjectProgram('g1', hostKey))).toBeUndefined();
    expect(await db.read(() => findRegistryObjectTextProgram('g1', noteKey))).toBe('linked note\nx');
    expect(await db.read(() => findRegistryObjectTextProgram('g1', memoryKey))).toBe('linked memory');
    expect(await db.read(() => findRegistryObjectTextProgram('other', memoryKey))).toBeUndefined();

    // Deleting the note's and the memory's rows drops their links (SQLite: triggers; PostgreSQL: plpgsql triggers).
    await write(function* () {
      yield* run(portable('DELETE FROM notes WHERE id = ?', note.id));
      yield* run(portable('DELETE FROM memories WHERE id = ?', memoryId));
    });
    expect(
      (await db.read(() => listCategoryLinksProgram('g1', 'cat-a', { limit: 10 }))).map((l) => l.object_kind),
    ).toEqual(['host']);

    expect(await write(() => deleteRegistryLinkProgram('g1', 'cat-a', hostKey))).toBe(true);
    expect(await write(() => deleteRegistryLinkProgram('g1', 'cat-a', hostKey))).toBe(false);
    await write(() => link('cat-a', hostKey));
    await write(() => link('cat-a', { kind: 'host', hostType: 'contact', ref: 'c10' }));
    const moved = await write(() => moveCategoryLinksProgram('g1', 'cat-a', 'cat-b'));
    expect(moved).toEqual({ moved: 1, alreadyLinked: 1 });
    expect(
      await write(() =>
        updateRegistryCategoryProgram('g1', 'cat-b', { aliases_json: '["Alpha"]', updated_at: NOW + 5 }),
      ),
    ).toBe(true);
    expect(await write(() => updateRegistryCategoryProgram('other', 'cat-b', { updated_at: NOW }))).toBe(false);
    expect(await write(() => deleteRegistryCategoryProgram('g1', 'cat-a'))).toBe(true);
    expect(await db.read(() => listCategoryLinksProgram('g1', 'cat-a', { limit: 10 }))).toEqual([]);
    const events = await db.read(() => listRegistryEventsProgram('g1', 'cat-a', 10));
    expect(events).toMatchObject([{ action: 'created', before_json: null, after_json: '{"name":"Alpha"}' }]);
    expect(await db.read(() => findRegistryCategoryProgram('g1', 'cat-b'))).toMatchObject({
      aliases_json: '["Alpha"]',
      updated_at: NOW + 5,
    });
  });

  it('finds live memories linked to host references, best first (the steward’s linked tier)', async () => {
    const rows = [
      newMemory('l1', 'plain'),
      newMemory('l1', 'pinned', { pinned: 1 }),
      newMemory('l1', 'important', { importance: 0.9 }),
      newMemory('l1', 'expired', { expires_at: NOW - 1 }),
      newMemory('l2', 'other scope'),
    ];
    await write(function* () {
      for (const row of rows) {
        yield* insertMemoryRowProgram(row);
        yield* replaceMemoryLinksProgram(row.agent_id, row.id, [
          { type: 'contact', refId: 'ann' },
          ...(row.content === 'plain' ? [{ type: 'deal', refId: 'd1' }] : []),
        ]);
      }
    });
    const refs = [
      { type: 'contact', refId: 'ann' },
      { type: 'deal', refId: 'd1' },
    ];
    const found = await db.read(() => findLiveLinkedMemoriesProgram('l1', refs, NOW, 10));
    expect(found.map((r) => [r.content, r.ref_type])).toEqual([
      ['pinned', 'contact'],
      ['important', 'contact'],
      expect.arrayContaining(['plain']),
      expect.arrayContaining(['plain']),
    ]);
    expect(found[0]).toMatchObject({ id: rows[1]?.id, ref_id: 'ann', pinned: 1, type: 'fact' });
    expect(await db.read(() => findLiveLinkedMemoriesProgram('l1', refs, NOW, 1))).toHaveLength(1);
    expect(await db.read(() => findLiveLinkedMemoriesProgram('l1', [], NOW, 10))).toEqual([]);
  });

  it('stores API tokens; revoking is once; revoked tokens are listed only when asked', async () => {
    const token = (id: string, createdAt: number) => ({
      id,
      name: null,
      agents: '["a"]',
      permissions: '["read"]',
      secret_hash: `hash-${id}`,
      created_at: createdAt,
      expires_at: null,
      revoked_at: null,
    });
    await write(function* () {
      yield* insertApiTokenProgram(token('tok-2', NOW));
      yield* insertApiTokenProgram(token('tok-1', NOW));
    });
    expect(await db.read(() => findApiTokenProgram('tok-1'))).toEqual(token('tok-1', NOW));
    expect(await write(() => revokeApiTokenProgram('tok-1', NOW + 1))).toBe(true);
    expect(await write(() => revokeApiTokenProgram('tok-1', NOW + 2))).toBe(false);
    expect((await db.read(() => listApiTokensProgram())).map((t) => t.id)).toEqual(['tok-2']);
    const every = await db.read(() => listApiTokensProgram({ includeRevoked: true }));
    expect(every.map((t) => [t.id, t.revoked_at])).toEqual([
      ['tok-1', NOW + 1],
      ['tok-2', null],
    ]);
  });
});
