import { describe, expect, it } from 'vitest';
import {
  findLinkedNotes,
  insertNote,
  listNotePage,
  nearestNoteVectors,
  noteVectorCosines,
  rankNotesByText,
  replaceNoteLinks,
  upsertNoteVector,
} from '../src/index.js';
import type { SqlExecutor } from '../src/sql.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';
import { textTerms } from '../src/text-terms.js';

type TestStore = Awaited<ReturnType<typeof createTestStore>>;

function addNote(sql: SqlExecutor, agentId: string, id: string, title: string, content: string, refs: string[] = []) {
  const links = refs.map((refId) => ({ type: 'contact', refId }));
  const row = insertNote(sql, {
    id,
    agent_id: agentId,
    title,
    content,
    tags: '[]',
    status: 'active',
    linked_entities: JSON.stringify(links),
    created_at: 0,
    updated_at: 0,
    resolved_at: null,
    archived_at: null,
  });
  replaceNoteLinks(sql, agentId, id, links);
  return row;
}

/** The SQL texts the store prepares while `fn` runs (the statements a repository function really issues). */
function statementsOf(store: TestStore, fn: () => void): string[] {
  const db = store.database as unknown as { prepare: (sql: string) => unknown };
  const original = db.prepare.bind(db);
  const seen: string[] = [];
  db.prepare = (sql: string) => {
    seen.push(sql);
    return original(sql);
  };
  try {
    fn();
  } finally {
    db.prepare = original;
  }
  return seen;
}

function plan(store: TestStore, sql: string): string {
  const params = Array.from({ length: sql.split('?').length - 1 }, () => null);
  const rows = store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>;
  return rows.map((r) => r.detail).join('\n');
}

describe('notes store', () => {
  it('an entity lookup is a range of the link index (EXPLAIN QUERY PLAN), never a scan of notes', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      for (let i = 0; i < 50; i++) addNote(sql, 'a', `n${i}`, `t${i}`, 'c', i % 5 === 0 ? ['42'] : ['7']);
    });
    const listed = statementsOf(store, () =>
      store.read((sql) => listNotePage(sql, { agentId: 'a', entity: { type: 'contact', refId: '42' }, limit: 5 })),
    );
    const linked = statementsOf(store, () =>
      store.read((sql) => findLinkedNotes(sql, 'a', [{ type: 'contact', refId: '42' }], 100)),
    );
    const listSql = listed.find((s) => s.includes('note_links'));
    const linkSql = linked.find((s) => s.includes('note_links'));
    expect(listSql).toBeDefined();
    expect(linkSql).toBeDefined();
    for (const sql of [listSql as string, linkSql as string]) {
      const p = plan(store, sql);
      expect(p).toMatch(
        /SEARCH (?:l|note_links) USING COVERING INDEX note_links_ref \(agent_id=\? AND ref_type=\? AND ref_id=\?\)/,
      );
      expect(p).not.toMatch(/SCAN (?:n|notes|l|note_links)\b/);
    }
    expect(
      store
        .read((sql) => listNotePage(sql, { agentId: 'a', entity: { type: 'contact', refId: '42' }, limit: 20 }))
        .map((r) => r.id),
    ).toEqual(['n45', 'n40', 'n35', 'n30', 'n25', 'n20', 'n15', 'n10', 'n5', 'n0']);
    store.close();
  });

  it("one agent's notes change neither the scores nor the order of another's text ranking", async () => {
    const store = await createTestStore();
    store.write((sql) => {
      addNote(sql, 'a', 'a1', 'Renewal call', 'Call Alice about the renewal quote');
      addNote(sql, 'a', 'a2', 'Lunch', 'Lunch with Bob on Friday');
      addNote(sql, 'a', 'a3', 'Quote', 'Send the renewal quote to Carol');
    });
    const query = ['renewal', 'quote'];
    const before = store.read((sql) => rankNotesByText(sql, 'a', query, 10));
    store.write((sql) => {
      for (let i = 0; i < 30; i++) addNote(sql, 'b', `b${i}`, 'Renewal renewal', 'renewal quote renewal quote lunch');
    });
    const after = store.read((sql) => rankNotesByText(sql, 'a', query, 10));
    expect(after).toEqual(before);
    expect(before.length).toBe(2);
    // Scoring a chosen set (an entity's notes) gives each the score it has in the full ranking.
    const within = store.read((sql) => rankNotesByText(sql, 'a', query, 10, () => true, [1, 2, 3, 40]));
    expect(within).toEqual(before);
    const one = store.read((sql) => rankNotesByText(sql, 'a', query, 10, () => true, [before[1]?.row.seq ?? 0]));
    expect(one).toEqual([before[1]]);
    // The scopes' counts are per agent.
    const scopes = store.database
      .prepare('SELECT agent_id, docs FROM note_text_scopes ORDER BY agent_id')
      .all() as Array<{ agent_id: string; docs: number }>;
    expect(scopes).toEqual([
      { agent_id: 'a', docs: 3 },
      { agent_id: 'b', docs: 30 },
    ]);
    store.close();
  });

  it('the text index follows title and content updates', async () => {
    const store = await createTestStore();
    store.write((sql) => addNote(sql, 'a', 'x', 'Alpha', 'bravo'));
    store.write((sql) => sql.run(raw("UPDATE notes SET title = 'Charlie', content = 'delta' WHERE id = 'x'")));
    const rank = (words: string[]) => store.read((sql) => rankNotesByText(sql, 'a', words, 10)).length;
    expect(rank(['alpha'])).toBe(0);
    expect(rank(['bravo'])).toBe(0);
    expect(rank(['charlie'])).toBe(1);
    expect(rank(['delta'])).toBe(1);
    const postings = store.database.prepare('SELECT term FROM note_text_postings ORDER BY term').all() as Array<{
      term: string;
    }>;
    expect(postings.map((p) => p.term)).toEqual([...textTerms('Charlie\ndelta').counts.keys()].sort());
    const scope = store.database.prepare('SELECT docs, tokens FROM note_text_scopes').get();
    expect(scope).toEqual({ docs: 1, tokens: 2 });
    store.close();
  });

  it('nearest note vectors: sqlite-vec and the JavaScript scan agree, scoped to the agent', async () => {
    const store = await createTestStore();
    const unit = (xs: number[]) => {
      const n = Math.hypot(...xs);
      return Float32Array.from(xs, (x) => x / n);
    };
    store.write((sql) => {
      for (let i = 0; i < 30; i++) {
        for (const agent of ['a', 'b']) {
          const id = `${agent}${i}`;
          addNote(sql, agent, id, `t${i}`, 'c');
          const vector = unit([Math.cos(i / 5), Math.sin(i / 5), agent === 'b' ? 1 : 0.1, (i % 3) - 1]);
          upsertNoteVector(sql, { noteId: id, agentId: agent, model: 'm', contentHash: 'h', vector, now: 0 });
        }
      }
    });
    const query = unit([1, 0.2, 0, 0]);
    const q = (vectorAvailable: boolean) => ({ agentId: 'a', model: 'm', query, vectorAvailable });
    const js = store.read((sql) => nearestNoteVectors(sql, q(false), 5));
    expect(js.map((h) => h.noteId).every((id) => id.startsWith('a'))).toBe(true);
    expect(js).toHaveLength(5);
    const within = store.read((sql) => nearestNoteVectors(sql, q(false), 5, ['a3', 'a20', 'b0']));
    expect(within.map((h) => h.noteId).sort()).toEqual(['a20', 'a3']);
    const cosines = store.read((sql) => noteVectorCosines(sql, q(false), ['a7', 'b7']));
    expect(cosines.map((h) => h.noteId)).toEqual(['a7']);
    if (store.vector.available) {
      const native = store.read((sql) => nearestNoteVectors(sql, q(true), 5));
      expect(native.map((h) => h.noteId)).toEqual(js.map((h) => h.noteId));
      for (const [i, h] of native.entries()) expect(h.cosine).toBeCloseTo(js[i]?.cosine ?? Number.NaN, 5);
      expect(store.read((sql) => noteVectorCosines(sql, q(true), ['a7', 'b7']))[0]?.cosine).toBeCloseTo(
        cosines[0]?.cosine ?? Number.NaN,
        5,
      );
    }
    // A zero query vector finds nothing (no division by zero, no sqlite-vec error).
    expect(store.read((sql) => nearestNoteVectors(sql, { ...q(true), query: new Float32Array(4) }, 5))).toEqual([]);
    store.close();
  });
});
