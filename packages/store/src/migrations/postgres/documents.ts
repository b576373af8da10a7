// The PostgreSQL form of the documents' and connectors' tables, attached to the migration that
// created each table on SQLite: the baseline's three in their final shape (migration 18's columns
// folded in, in SQLite's column order: an ALTER appends), the text parts (9), and migration 18's
// conversions, connector cursors and indexes. Types as in memories.ts: INTEGER -> bigint (integer
// for small numbers such as a conversion), TEXT -> text.
//
// Document search has no table of its own on either dialect: chunks are `document_chunk`
// memories, ranked by the memories' scoped text index (`text_postings`), which the memory writer
// keeps on both dialects.
// SQLite's `registry_links_document_gone` trigger (migration 16) belongs to the registry's form.

/** Migration 1 (baseline): connectors, documents, and the links of documents to their chunk memories. */
export const POSTGRES_DOCUMENTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS connectors (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    provider text NOT NULL,
    display_name text,
    config_json text NOT NULL DEFAULT '{}',
    cursor_json text,
    status text NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'syncing', 'error')),
    last_sync_at bigint,
    last_error text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS connectors_provider ON connectors (agent_id, provider)',
  `CREATE TABLE IF NOT EXISTS documents (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    project text,
    source_url text,
    source_type text NOT NULL CHECK (source_type IN ('url', 'text', 'file')),
    content_type text,
    content_hash text,
    title text,
    raw_content text,
    status text NOT NULL DEFAULT 'queued' CHECK (status IN
      ('queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed', 'deleted')),
    error text,
    connector_id text REFERENCES connectors (id) ON DELETE SET NULL,
    chunk_count bigint NOT NULL DEFAULT 0,
    memory_count bigint NOT NULL DEFAULT 0,
    metadata_json text NOT NULL DEFAULT '{}',
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    completed_at bigint,
    source_path text,
    conversion integer NOT NULL DEFAULT 1
  )`,
  'CREATE INDEX IF NOT EXISTS documents_status ON documents (agent_id, status)',
  'CREATE INDEX IF NOT EXISTS documents_hash ON documents (agent_id, content_hash)',
  'CREATE INDEX IF NOT EXISTS documents_connector ON documents (connector_id)',
  `CREATE TABLE IF NOT EXISTS document_memories (
    document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    memory_id text NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk_index bigint NOT NULL,
    conversion integer NOT NULL DEFAULT 1,
    location_json text,
    PRIMARY KEY (document_id, memory_id)
  )`,
  'CREATE INDEX IF NOT EXISTS document_memories_memory ON document_memories (memory_id)',
];

/** Migration 9: a large document's text in parts. */
export const POSTGRES_DOCUMENT_PARTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS document_content_parts (
    document_id text NOT NULL,
    part bigint NOT NULL,
    text text NOT NULL,
    PRIMARY KEY (document_id, part)
  )`,
];

/** Migration 18 (workspace index): source lookups, conversion lineage and connector cursors. */
export const POSTGRES_WORKSPACE_INDEX: readonly string[] = [
  `CREATE INDEX IF NOT EXISTS documents_source_path ON documents (agent_id, source_path)
    WHERE source_path IS NOT NULL AND status != 'deleted'`,
  `CREATE INDEX IF NOT EXISTS documents_source_url ON documents (agent_id, source_url)
    WHERE source_url IS NOT NULL AND status != 'deleted'`,
  'CREATE INDEX IF NOT EXISTS document_memories_conversion ON document_memories (document_id, conversion)',
  `CREATE TABLE IF NOT EXISTS document_conversions (
    document_id text NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    conversion integer NOT NULL,
    agent_id text NOT NULL,
    content_type text,
    content_hash text,
    extraction_json text NOT NULL DEFAULT '{}',
    chunk_count bigint NOT NULL DEFAULT 0,
    memory_count bigint NOT NULL DEFAULT 0,
    completed_at bigint,
    replaced_at bigint NOT NULL,
    PRIMARY KEY (document_id, conversion)
  )`,
  `CREATE TABLE IF NOT EXISTS connector_items (
    connector_id text NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
    item_key text NOT NULL,
    agent_id text NOT NULL,
    version text NOT NULL,
    byte_hash text,
    document_id text,
    seen_sync bigint NOT NULL,
    updated_at bigint NOT NULL,
    PRIMARY KEY (connector_id, item_key)
  )`,
  'CREATE INDEX IF NOT EXISTS connector_items_hash ON connector_items (connector_id, byte_hash)',
  'CREATE INDEX IF NOT EXISTS connector_items_seen ON connector_items (connector_id, seen_sync)',
];
