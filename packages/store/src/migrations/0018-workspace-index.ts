import type { Migration } from './migration.js';
import { POSTGRES_WORKSPACE_INDEX } from './postgres/documents.js';

// The workspace index (issue 17). Documents get a source path (a file's path inside its connector's
// root) and a conversion number: a changed source is converted again into the same document, the
// previous conversion's lineage is kept in `document_conversions`, and each chunk link records the
// conversion that produced it and where in the source it sits (page, heading). Connectors keep one
// cursor row per item: its version (a folder file's mtime and size), the hash of its bytes, the
// document it became, and the sync that last saw it (items a finished sync did not see are gone).
export const workspaceIndex: Migration = {
  version: 18,
  name: 'workspace-index',
  statements: [
    'ALTER TABLE documents ADD COLUMN source_path TEXT',
    'ALTER TABLE documents ADD COLUMN conversion INTEGER NOT NULL DEFAULT 1',
    `CREATE INDEX IF NOT EXISTS documents_source_path ON documents (agent_id, source_path)
      WHERE source_path IS NOT NULL AND status != 'deleted'`,
    `CREATE INDEX IF NOT EXISTS documents_source_url ON documents (agent_id, source_url)
      WHERE source_url IS NOT NULL AND status != 'deleted'`,
    'ALTER TABLE document_memories ADD COLUMN conversion INTEGER NOT NULL DEFAULT 1',
    // JSON: { page?, pageEnd?, section?, offset } of the chunk in the extracted text.
    'ALTER TABLE document_memories ADD COLUMN location_json TEXT',
    `CREATE INDEX IF NOT EXISTS document_memories_conversion ON document_memories (document_id, conversion)`,
    `CREATE TABLE IF NOT EXISTS document_conversions (
      document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
      conversion INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      content_type TEXT,
      content_hash TEXT,
      extraction_json TEXT NOT NULL DEFAULT '{}',
      chunk_count INTEGER NOT NULL DEFAULT 0,
      memory_count INTEGER NOT NULL DEFAULT 0,
      completed_at INTEGER,
      replaced_at INTEGER NOT NULL,
      PRIMARY KEY (document_id, conversion)
    )`,
    `CREATE TABLE IF NOT EXISTS connector_items (
      connector_id TEXT NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
      item_key TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      version TEXT NOT NULL,
      byte_hash TEXT,
      document_id TEXT,
      seen_sync INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (connector_id, item_key)
    )`,
    'CREATE INDEX IF NOT EXISTS connector_items_hash ON connector_items (connector_id, byte_hash)',
    'CREATE INDEX IF NOT EXISTS connector_items_seen ON connector_items (connector_id, seen_sync)',
  ],
  postgres: [...POSTGRES_WORKSPACE_INDEX],
};
