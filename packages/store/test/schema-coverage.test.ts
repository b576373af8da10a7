import { describe, expect, it } from 'vitest';
import { DATABASE_TABLES } from '../src/schema/database.js';
import { createTestStore } from '../src/testing.js';
import { ensureVectorIndex } from '../src/vector-index/indexes.js';

// Every ordinary table a migrated database holds must have a Kysely type in `DatabaseSchema` (whose
// run-time list is DATABASE_TABLES). A migration that adds a table without typing it fails here.
describe('schema coverage', () => {
  it('types every table of a freshly migrated database, and no table that does not exist', async () => {
    const store = await createTestStore();
    // vec0 tables are created at run time; create one so its shadow tables are in the dump too.
    store.write((sql) => ensureVectorIndex(sql, store.vector.available, 'test-model', 8, store.clock.now()));
    const rows = store.database
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .all() as Array<{ name: string; sql: string | null }>;
    // vec0 tables, and the shadow tables each keeps under its own name as a prefix (the FTS5 tables
    // went in migration 20).
    const virtual = rows.filter((r) => /^CREATE VIRTUAL TABLE/i.test(r.sql ?? '')).map((r) => r.name);
    expect(virtual.every((name) => !name.endsWith('_fts'))).toBe(true);
    const ordinary = rows
      .map((r) => r.name)
      .filter((name) => !virtual.some((v) => name === v || name.startsWith(`${v}_`)))
      .sort();
    expect(ordinary).toEqual([...DATABASE_TABLES].sort());
    store.close();
  });
});
