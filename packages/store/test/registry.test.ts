import { describe, expect, it } from 'vitest';
import {
  insertRegistryCategory,
  insertRegistryLink,
  listCategoryLinks,
  listObjectCategories,
  listRegistryCategories,
  moveCategoryLinks,
  partitionCategoryObjects,
} from '../src/index.js';
import type { SqlExecutor } from '../src/internal/sql.js';
import { EXCLUSIVE_OBJECTS_SQL } from '../src/repositories/registry-links.js';
import { createTestStore } from '../src/testing.js';

const category = (id: string, agentId: string, name: string) => ({
  id,
  agent_id: agentId,
  name,
  normalized_name: name.toLowerCase(),
  description: null,
  aliases_json: '[]',
  created_by: 'agent' as const,
  created_at: 1,
  updated_at: 1,
});
const memory = (ref: string) => ({ kind: 'memory' as const, hostType: '', ref });
const contact = (ref: string) => ({ kind: 'host' as const, hostType: 'contact', ref });

/** The plan SQLite chooses for a statement: its detail lines. */
function plan(store: Awaited<ReturnType<typeof createTestStore>>, sql: string, ...params: unknown[]): string {
  return (store.database.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>)
    .map((r) => r.detail)
    .join('\n');
}

describe('registry repositories', () => {
  it('links both ways, counts per category, and splits exclusive from shared objects', async () => {
    const store = await createTestStore();
    store.write((sql: SqlExecutor) => {
      insertRegistryCategory(sql, category('c1', 'a', 'Finance'));
      insertRegistryCategory(sql, category('c2', 'a', 'Family'));
      insertRegistryCategory(sql, category('c3', 'b', 'Finance'));
      const link = (categoryId: string, agentId: string, object: ReturnType<typeof memory | typeof contact>) =>
        insertRegistryLink(sql, { agentId, categoryId, object, createdBy: 'agent', now: 2 });
      expect(link('c1', 'a', memory('m1'))).toBe(true);
      expect(link('c1', 'a', memory('m1'))).toBe(false);
      link('c1', 'a', memory('m2'));
      link('c2', 'a', memory('m2'));
      link('c1', 'a', contact('42'));
      // The same host reference in another scope is another object.
      link('c3', 'b', contact('42'));
    });
    store.read((sql) => {
      expect(listRegistryCategories(sql, 'a', 10).map((c) => [c.id, c.object_count])).toEqual([
        ['c2', 1],
        ['c1', 3],
      ]);
      expect(listObjectCategories(sql, 'a', memory('m2')).map((c) => c.id)).toEqual(['c2', 'c1']);
      expect(listObjectCategories(sql, 'a', contact('42')).map((c) => c.id)).toEqual(['c1']);
      expect(listObjectCategories(sql, 'b', memory('m2'))).toEqual([]);
      expect(partitionCategoryObjects(sql, 'a', 'c1')).toEqual({
        exclusive: [contact('42'), memory('m1')],
        shared: [memory('m2')],
      });
    });
    store.write((sql) => {
      expect(moveCategoryLinks(sql, 'a', 'c1', 'c2')).toEqual({ moved: 2, alreadyLinked: 1 });
      expect(listCategoryLinks(sql, 'a', 'c1', { limit: 10 })).toEqual([]);
      expect(listCategoryLinks(sql, 'a', 'c2', { limit: 10 })).toHaveLength(3);
    });
    store.close();
  });

  it('answers both directions, counts and the exclusive split from index searches, never a scan of the links', async () => {
    const store = await createTestStore();
    const byObject = plan(
      store,
      `SELECT c.* FROM registry_category_links l JOIN registry_categories c ON c.id = l.category_id
       WHERE l.agent_id = ? AND l.object_kind = ? AND l.host_type = ? AND l.object_ref = ?`,
      'a',
      'host',
      'contact',
      '42',
    );
    expect(byObject).toContain(
      'SEARCH l USING COVERING INDEX registry_category_links_object (agent_id=? AND object_kind=? AND host_type=? AND object_ref=?)',
    );
    const byCategory = plan(
      store,
      'SELECT * FROM registry_category_links WHERE agent_id = ? AND category_id = ? ORDER BY created_at LIMIT 50',
      'a',
      'c1',
    );
    expect(byCategory).toContain(
      'SEARCH registry_category_links USING INDEX registry_category_links_category (agent_id=? AND category_id=?)',
    );
    const perKind = plan(
      store,
      'SELECT object_kind, count(*) FROM registry_category_links WHERE agent_id = ? AND category_id = ? GROUP BY object_kind',
      'a',
      'c1',
    );
    expect(perKind).toBe(
      'SEARCH registry_category_links USING COVERING INDEX registry_category_links_category (agent_id=? AND category_id=?)',
    );
    const exclusive = plan(store, EXCLUSIVE_OBJECTS_SQL, 'a', 'c1');
    expect(exclusive).toBe(
      [
        'SEARCH l USING COVERING INDEX registry_category_links_category (agent_id=? AND category_id=?)',
        'CORRELATED SCALAR SUBQUERY 1',
        'SEARCH o USING COVERING INDEX registry_category_links_object (agent_id=? AND object_kind=? AND host_type=? AND object_ref=?)',
      ].join('\n'),
    );
    expect([byObject, byCategory, perKind, exclusive].join('\n')).not.toMatch(/SCAN /);
    store.close();
  });
});
