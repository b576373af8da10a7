import { describe, expect, it } from 'vitest';
import { findLiveLinkedMemories } from '../src/index.js';
import { replaceMemoryLinks } from '../src/repositories/links.js';
import { insertMemory } from '../src/repositories/memories.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

const memory = (
  id: string,
  agentId: string,
  extra: { importance?: number; pinned?: 0 | 1; created?: number; expires?: number } = {},
) => ({
  id,
  agent_id: agentId,
  project: null,
  type: 'decision' as const,
  category: null,
  content: `content of ${id}`,
  normalized_content: `content of ${id}`,
  content_hash: `hash-${id}`,
  confidence: 1,
  importance: extra.importance ?? 0.5,
  tags: '[]',
  linked_entities: '[]',
  pinned: extra.pinned ?? (0 as const),
  source_type: null,
  source_id: null,
  who: null,
  why: null,
  expires_at: extra.expires ?? null,
  embedding_model: null,
  created_at: extra.created ?? 0,
  updated_at: 0,
});

describe('findLiveLinkedMemories', () => {
  it('reads live, unexpired memories of one agent linked to the references, best first, through the link index', async () => {
    const store = await createTestStore();
    const alice = { type: 'contact', refId: '42' };
    const acme = { type: 'project', refId: '7' };
    store.write((sql) => {
      insertMemory(sql, memory('old', 'a', { created: 1 }));
      insertMemory(sql, memory('new', 'a', { created: 5 }));
      insertMemory(sql, memory('important', 'a', { importance: 0.9 }));
      insertMemory(sql, memory('pinned', 'a', { pinned: 1, importance: 0.1 }));
      insertMemory(sql, memory('expired', 'a', { expires: 10 }));
      insertMemory(sql, memory('forgotten', 'a'));
      insertMemory(sql, memory('unlinked', 'a'));
      insertMemory(sql, memory('theirs', 'b'));
      for (const id of ['old', 'new', 'important', 'pinned', 'expired', 'forgotten'])
        replaceMemoryLinks(sql, 'a', id, [alice]);
      replaceMemoryLinks(sql, 'a', 'new', [alice, acme]);
      replaceMemoryLinks(sql, 'b', 'theirs', [alice]);
      sql.run(raw("UPDATE memories SET is_deleted = 1 WHERE id = 'forgotten'"));
    });
    // The first call prepares the statement (later ones reuse it): capture its text for the plan.
    const seen: string[] = [];
    const db = store.database as unknown as { prepare: (sql: string) => unknown };
    const original = db.prepare.bind(db);
    db.prepare = (text: string) => {
      seen.push(text);
      return original(text);
    };
    const rows = store.read((sql) => findLiveLinkedMemories(sql, 'a', [alice, acme], 20, 100));
    db.prepare = original;
    expect(rows.map((r) => `${r.id}:${r.ref_type}`)).toEqual([
      'pinned:contact',
      'important:contact',
      'new:contact',
      'new:project',
      'old:contact',
    ]);
    expect(store.read((sql) => findLiveLinkedMemories(sql, 'a', [alice], 20, 2)).map((r) => r.id)).toEqual([
      'pinned',
      'important',
    ]);
    expect(store.read((sql) => findLiveLinkedMemories(sql, 'a', [], 20, 10))).toEqual([]);
    // The plan: the reference list drives a search of the link index, memories by primary key.
    const statement = seen.find((s) => s.includes('memory_links')) as string;
    const params = Array.from({ length: statement.split('?').length - 1 }, () => null);
    const plan = (store.database.prepare(`EXPLAIN QUERY PLAN ${statement}`).all(...params) as Array<{ detail: string }>)
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toMatch(
      /SEARCH l USING (?:COVERING )?INDEX memory_links_ref \(agent_id=\? AND ref_type=\? AND ref_id=\?\)/,
    );
    expect(plan).toMatch(/SEARCH m USING INDEX sqlite_autoindex_memories_1 \(id=\?\)/);
    expect(plan).not.toMatch(/SCAN (?:m|l)\b/);
    store.close();
  });
});
