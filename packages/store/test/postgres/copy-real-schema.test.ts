import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { createSequentialIds } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemories, type NewMemory, prepareContent } from '../../src/memory-writer/create-memories.js';
import { forgetMemoryRecord } from '../../src/memory-writer/forget-memory.js';
import type { Store } from '../../src/open-store.js';
import {
  copySqliteToPostgres,
  openPostgresStore,
  type PostgresStore,
  searchPostgresVectors,
} from '../../src/postgres.js';
import { searchMemoriesLexical, searchMemoriesLexicalProgram } from '../../src/repositories/lexical-search.js';
import { findMemory, findMemoryProgram } from '../../src/repositories/memories.js';
import { createTestStore } from '../../src/testing.js';

// The whole store schema: memories written by the one writer on SQLite (with history, text
// postings, vectors, a forgotten one), copied into PostgreSQL, then read and searched there.
const NOW = Date.UTC(2026, 0, 1);
const WORDS = ['harbor', 'lantern', 'copper', 'meadow', 'orbit', 'velvet', 'quartz', 'ember', 'tundra', 'willow'];

function vectorOf(i: number): Float32Array {
  return Float32Array.from({ length: 8 }, (_, d) => Math.sin(i * 1.7 + d * 0.9));
}

let sqlite: Store;
let pglite: PGlite;
let postgres: PostgresStore;
let createdIds: string[] = [];
beforeAll(async () => {
  sqlite = await createTestStore({ vectorExtension: 'off' });
  const memories: NewMemory[] = Array.from({ length: 120 }, (_, i) => ({
    agentId: i % 3 === 0 ? 'other' : 'alice',
    content: prepareContent(`note ${i}: ${WORDS[i % 10]} ${WORDS[(i * 7) % 10]} ${WORDS[(i * 3) % 10]} number ${i}`),
    type: 'fact',
    importance: 0.5,
    audit: {},
    embedding: { model: 'tiny', vector: vectorOf(i) },
  }));
  const deps = { ids: createSequentialIds('m'), vectorAvailable: false, inlineEntityLinking: false };
  const created = sqlite.write((sql) => createMemories(sql, deps, memories, NOW));
  createdIds = created.map((c) => c.id);
  sqlite.write((sql) =>
    forgetMemoryRecord(
      sql,
      deps,
      {
        agentId: 'alice',
        id: created[1]?.id ?? '',
        audit: { reason: 'test' },
      },
      NOW + 1,
    ),
  );
  pglite = await PGlite.create({ extensions: { vector } });
  postgres = await openPostgresStore({ target: { pglite } });
}, 120_000);
afterAll(async () => {
  sqlite?.close();
  await postgres?.close();
  await pglite?.close();
});

describe('copying a real store from SQLite to PostgreSQL', () => {
  it('copies and verifies every table PostgreSQL has, and reads and searches the same afterwards', async () => {
    const report = await copySqliteToPostgres({ from: sqlite, to: postgres });
    expect(report.verified).toBe(true);
    const byTable = new Map(report.tables.map((t) => [t.table, t]));
    expect(byTable.get('memories')).toMatchObject({ sqliteRows: 120, postgresRows: 120, status: 'copied' });
    expect(byTable.get('memory_history')?.postgresRows).toBe(121);
    expect(byTable.get('embeddings')?.postgresRows).toBe(119);
    expect(byTable.get('text_postings')?.postgresRows).toBeGreaterThan(0);
    // SQLite's own indexes (FTS5, vec0 and their shadow tables) are not reported as left behind.
    expect(report.notCopied.filter((t) => /fts|vec/.test(t.table))).toEqual([]);

    const id = createdIds[5] ?? '';
    expect(await postgres.read(() => findMemoryProgram('alice', id))).toMatchObject(
      sqlite.read((sql) => {
        const { fts_scope: _, ...row } = findMemory(sql, 'alice', id) as Record<string, unknown>;
        return row;
      }),
    );
    const search = {
      agentId: 'alice',
      terms: { tokens: ['copper', 'ember'] },
      matching: 'any',
      filters: {},
      now: NOW,
      limit: 10,
    } as const;
    const onSqlite = sqlite.read((sql) => searchMemoriesLexical(sql, search as never));
    const onPostgres = await postgres.read(() => searchMemoriesLexicalProgram(search as never));
    expect(onPostgres.length).toBeGreaterThan(0);
    expect(onPostgres).toEqual(onSqlite);

    // The copied vectors reached pgvector's mirror through its trigger: an exact search finds them.
    expect(postgres.vector.available).toBe(true);
    const found = await postgres.read(() =>
      searchPostgresVectors({ agentId: 'alice', model: 'tiny', query: vectorOf(4), k: 3, pgvector: true }),
    );
    expect(found.completeness).toBe('exact');
    expect(found.vectors).toBe(79);
    expect(found.hits[0]).toMatchObject({ memoryId: createdIds[4] });
    expect(found.hits[0]?.cosine).toBeCloseTo(1, 5);
  });
});
