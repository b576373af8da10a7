import { describe, expect, it } from 'vitest';
import { insertEntity, matchEntitiesByName } from '../src/index.js';
import { findMemoryIdsByLink, replaceMemoryLinks } from '../src/repositories/links.js';
import { findLiveMemoryHashes, insertMemory, insertMemoryRow } from '../src/repositories/memories.js';
import { insertMention, listMentions } from '../src/repositories/mentions.js';
import { raw } from '../src/sql.js';
import { createTestStore } from '../src/testing.js';

const memory = (id: string, agentId: string) => ({
  id,
  agent_id: agentId,
  project: null,
  type: 'fact' as const,
  category: null,
  content: `content of ${id}`,
  normalized_content: `content of ${id}`,
  content_hash: `hash-${id}`,
  confidence: 1,
  importance: 0.5,
  tags: '[]',
  linked_entities: '[]',
  pinned: 0 as const,
  source_type: null,
  source_id: null,
  who: null,
  why: null,
  expires_at: null,
  embedding_model: null,
  created_at: 0,
  updated_at: 0,
});

describe('memory rows', () => {
  it('returns the new seq, or undefined for a live duplicate; finds live hashes of one scope in one query', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      const first = insertMemoryRow(sql, memory('m1', 'a'));
      expect(first).toBeGreaterThan(0);
      expect(insertMemoryRow(sql, { ...memory('m1b', 'a'), content_hash: 'hash-m1' })).toBeUndefined();
      expect(insertMemoryRow(sql, memory('m2', 'a'))).toBe((first as number) + 1);
      insertMemory(sql, memory('m3', 'b'));
      sql.run(raw("UPDATE memories SET is_deleted = 1 WHERE id = 'm2'"));
    });
    const live = (agentId: string, hashes: string[]) =>
      [...store.read((sql) => findLiveMemoryHashes(sql, agentId, hashes))].sort();
    // Forgotten rows and other scopes' rows do not count; one hash takes the point lookup.
    expect(live('a', ['hash-m1', 'hash-m2', 'hash-m3', 'nope'])).toEqual(['hash-m1']);
    expect(live('a', ['hash-m1'])).toEqual(['hash-m1']);
    expect(live('a', ['hash-m3'])).toEqual([]);
    expect(live('b', ['hash-m1', 'hash-m3'])).toEqual(['hash-m3']);
    expect(live('a', [])).toEqual([]);
  });
});

describe('link and mention repositories', () => {
  it('finds memories by host reference within one scope, and replaces links', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      insertMemory(sql, memory('m1', 'a'));
      insertMemory(sql, memory('m2', 'a'));
      insertMemory(sql, memory('m3', 'b'));
      replaceMemoryLinks(sql, 'a', 'm1', [{ type: 'contact', refId: '42', label: 'Dana' }]);
      replaceMemoryLinks(sql, 'a', 'm2', [
        { type: 'contact', refId: '42' },
        { type: 'thread', refId: 't' },
      ]);
      replaceMemoryLinks(sql, 'b', 'm3', [{ type: 'contact', refId: '42' }]);
    });
    expect(store.read((sql) => findMemoryIdsByLink(sql, 'a', 'contact', '42'))).toEqual(['m1', 'm2']);
    expect(store.read((sql) => findMemoryIdsByLink(sql, 'b', 'contact', '42'))).toEqual(['m3']);
    store.write((sql) => replaceMemoryLinks(sql, 'a', 'm2', [{ type: 'thread', refId: 't' }]));
    expect(store.read((sql) => findMemoryIdsByLink(sql, 'a', 'contact', '42'))).toEqual(['m1']);
    expect(store.read((sql) => findMemoryIdsByLink(sql, 'a', 'thread', 't'))).toEqual(['m2']);
  });

  it('matches entities by canonical name or alias in scope, and records each mention once', async () => {
    const store = await createTestStore();
    store.write((sql) => {
      insertEntity(sql, { id: 'e-acme', agentId: 'a', name: 'Acme  Corp', aliases: ['ACME'], now: 0 });
      insertEntity(sql, { id: 'e-other', agentId: 'b', name: 'Acme Corp', now: 0 });
      insertMemory(sql, memory('m1', 'a'));
    });
    expect(store.read((sql) => matchEntitiesByName(sql, 'a', ['acme corp', 'acme', 'nobody']))).toEqual(
      expect.arrayContaining([
        { entityId: 'e-acme', canonicalName: 'acme corp' },
        { entityId: 'e-acme', canonicalName: 'acme' },
      ]),
    );
    expect(store.read((sql) => matchEntitiesByName(sql, 'a', ['acme corp'])).map((m) => m.entityId)).toEqual([
      'e-acme',
    ]);
    const mention = { memoryId: 'm1', entityId: 'e-acme', agentId: 'a', mentionText: 'ACME', confidence: 1, now: 0 };
    expect(store.write((sql) => insertMention(sql, mention))).toBe(true);
    expect(store.write((sql) => insertMention(sql, mention))).toBe(false);
    expect(store.read((sql) => listMentions(sql, 'a', 'm1')).map((m) => [m.entity_id, m.mention_text])).toEqual([
      ['e-acme', 'ACME'],
    ]);
    expect(store.read((sql) => listMentions(sql, 'b', 'm1'))).toEqual([]);
    expect(store.read((sql) => sql.get(raw("SELECT mentions FROM entities WHERE id = 'e-acme'")))).toEqual({
      mentions: 1,
    });
  });
});
