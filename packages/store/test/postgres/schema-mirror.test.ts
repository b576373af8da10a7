import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, type PostgresStore } from '../../src/postgres.js';
import { all, type Program, perDialect } from '../../src/program/program.js';
import { runSqliteProgram } from '../../src/program/run-sqlite.js';
import { raw } from '../../src/sql.js';
import { createTestStore } from '../../src/testing.js';

// The PostgreSQL schema mirrors SQLite's: every table with a PostgreSQL form has the same name and
// the same columns in the same order (programs read the same row shapes on both), and the indexes
// the memory queries rely on exist under SQLite's names.

// SQLite columns with no PostgreSQL form, and why: FTS5's scope token (nothing reads it since migration 20).
const SQLITE_ONLY_COLUMNS = new Set(['memories.fts_scope']);
// The queue's and the embedder identities' insert order: SQLite's implicit rowid, made an explicit
// identity column on PostgreSQL.
const POSTGRES_ONLY_COLUMNS = new Set(['memory_jobs.rowid', 'embedder_identities.rowid']);

let pglite: PGlite;
let store: PostgresStore;
beforeAll(async () => {
  pglite = await PGlite.create();
  store = await openPostgresStore({ target: { pglite } });
}, 120_000);
afterAll(async () => {
  await store?.close();
  await pglite?.close();
});

function* postgresColumns(): Program<Array<{ table_name: string; column_name: string }>> {
  return yield* all(
    perDialect(
      raw('SELECT 1'),
      raw(`SELECT table_name, column_name FROM information_schema.columns
           WHERE table_schema = 'public' AND table_name NOT LIKE 'schema_migrations%'
           ORDER BY table_name, ordinal_position`),
    ),
  );
}

describe('the PostgreSQL schema mirrors SQLite', () => {
  it('has SQLite’s tables and columns, in order', async () => {
    const pgRows = await store.read(() => postgresColumns());
    const tables = [...new Set(pgRows.map((r) => r.table_name))];
    expect(tables).toEqual(
      expect.arrayContaining([
        'memories',
        'memory_history',
        'memories_cold',
        'memory_links',
        'embeddings',
        'memory_hints',
        'text_scopes',
        'text_postings',
        'memory_counts',
        'memory_tombstones',
        'maintenance_state',
        'scope_erasures',
        'lifecycle_counts',
        'embedding_failures',
        'embedding_projections',
        'embedder_identities',
        'embedding_migrations',
        'embedding_reembeds',
        'api_tokens',
        'notes',
        'note_links',
        'note_events',
        'note_vectors',
        'note_text_scopes',
        'note_text_postings',
        'registry_categories',
        'registry_category_links',
        'registry_events',
        'relations',
        'entity_aspects',
        'entity_attributes',
        'entity_dependencies',
        'entity_communities',
        'entity_pinning',
        'recall_telemetry',
        'session_transcripts',
        'session_transcript_turns',
        'import_jobs',
        'import_records',
        'import_tombstones',
        ...[
          'connectors',
          'documents',
          'document_memories',
          'document_content_parts',
          'document_conversions',
          'connector_items',
        ],
        'dreaming_attention',
        'ontology_proposals',
        'dreaming_provenance',
        'dreaming_state',
        'dreaming_passes',
        'dreaming_tool_calls',
        'dreaming_evidence_offsets',
        'dreaming_evidence_exclusions',
        'dreaming_evidence_reviews',
        'ontology_contradictions',
        'memory_md_heads',
        'dreaming_reverts',
      ]),
    );
    const sqlite = await createTestStore({ vectorExtension: 'off' });
    for (const table of tables) {
      const sqliteColumns = sqlite
        .read((sql) =>
          runSqliteProgram(sql, all<{ name: string }>(raw(`SELECT name FROM pragma_table_xinfo(?)`, table))),
        )
        .map((c) => c.name)
        .filter((name) => !SQLITE_ONLY_COLUMNS.has(`${table}.${name}`));
      const postgresColumns = pgRows
        .filter((r) => r.table_name === table && !POSTGRES_ONLY_COLUMNS.has(`${table}.${r.column_name}`))
        .map((r) => r.column_name);
      expect({ table, columns: postgresColumns }).toEqual({
        table,
        columns: sqliteColumns,
      });
    }
    sqlite.close();
  });

  it('has the indexes scoped dedup and the memory reads use, under SQLite’s names', async () => {
    const indexes = await pglite.query<{ indexname: string; indexdef: string }>(
      "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'",
    );
    const byName = new Map(indexes.rows.map((r) => [r.indexname, r.indexdef]));
    expect(byName.get('memories_agent_hash_live')).toMatch(
      /UNIQUE INDEX .* \(agent_id, content_hash\) WHERE \(is_deleted = 0\)/,
    );
    for (const name of [
      'memories_agent_created',
      'memory_history_memory',
      'embeddings_agent_model',
      'memory_links_ref',
      'memory_hints_agent',
      'session_transcript_turns_session',
      'session_transcripts_idle',
      'session_transcripts_source',
      'import_records_pending',
      'notes_agent_seq',
      'notes_agent_status_seq',
      'notes_active_updated',
      'note_links_ref',
      'note_events_note',
      'note_vectors_agent_model',
      'registry_categories_name',
      'registry_category_links_category',
      'registry_category_links_object',
      'registry_events_category',
    ])
      expect(byName.has(name)).toBe(true);
  });
});
