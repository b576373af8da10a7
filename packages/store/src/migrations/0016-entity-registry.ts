import type { Migration } from './migration.js';
import { POSTGRES_REGISTRY } from './postgres/registry.js';

// The entity registry (seed 003): broad, host-facing categories ("Personal Finance", "Acme
// renewal") over everything an agent holds. Deliberately its own tables, not `entities` rows: the
// knowledge graph's entities are Dreaming's fine-grained nodes, and host-object links
// (`linked_entities` / `memory_links`) point at the host's records. Three systems, three names.
//
// `registry_category_links` is polymorphic (memory, note, document, transcript, host), so it has
// no foreign key to the objects; triggers drop the links of memories, notes, documents and
// transcripts whose rows are removed (purge, erase, removeSource), so a count never includes a
// vanished row. It comes after notes (migration 15): its note trigger needs that table.
// Host objects carry their host type in `host_type` ('' for the engine's own kinds) so a host
// reference `{ type, refId }` is one indexed lookup, like `memory_links`.
export const entityRegistry: Migration = {
  version: 16,
  name: 'entity-registry',
  statements: [
    `CREATE TABLE IF NOT EXISTS registry_categories (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      name TEXT NOT NULL,
      normalized_name TEXT NOT NULL,
      description TEXT,
      aliases_json TEXT NOT NULL DEFAULT '[]',
      created_by TEXT NOT NULL CHECK (created_by IN ('operator', 'agent', 'engine')),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE UNIQUE INDEX IF NOT EXISTS registry_categories_name ON registry_categories (agent_id, normalized_name)`,
    `CREATE TABLE IF NOT EXISTS registry_category_links (
      category_id TEXT NOT NULL REFERENCES registry_categories (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      object_kind TEXT NOT NULL CHECK (object_kind IN ('memory', 'note', 'document', 'transcript', 'host')),
      host_type TEXT NOT NULL DEFAULT '',
      object_ref TEXT NOT NULL,
      created_by TEXT NOT NULL CHECK (created_by IN ('operator', 'agent', 'engine')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (category_id, object_kind, host_type, object_ref)
    )`,
    // Objects of one category: counts per kind, the exclusive/shared split and pages of links. The
    // primary key leads with category_id but not the scope, and without this index a planner with
    // no statistics takes the object index by agent_id alone (a scan of the agent's links) to
    // avoid sorting by kind.
    `CREATE INDEX IF NOT EXISTS registry_category_links_category
      ON registry_category_links (agent_id, category_id, object_kind, host_type, object_ref)`,
    // Categories of one object: the other direction (covering, so "is this object in another
    // category" is answered from the index alone).
    `CREATE INDEX IF NOT EXISTS registry_category_links_object
      ON registry_category_links (agent_id, object_kind, host_type, object_ref, category_id)`,
    `CREATE TABLE IF NOT EXISTS registry_events (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      agent_id TEXT NOT NULL,
      category_id TEXT NOT NULL,
      action TEXT NOT NULL,
      actor_id TEXT,
      actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'agent', 'engine')),
      reason TEXT,
      before_json TEXT,
      after_json TEXT,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS registry_events_category ON registry_events (agent_id, category_id, seq)`,
    `CREATE TRIGGER IF NOT EXISTS registry_links_memory_gone AFTER DELETE ON memories BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'memory' AND host_type = '' AND object_ref = old.id;
    END`,
    `CREATE TRIGGER IF NOT EXISTS registry_links_document_gone AFTER DELETE ON documents BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'document' AND host_type = '' AND object_ref = old.id;
    END`,
    `CREATE TRIGGER IF NOT EXISTS registry_links_note_gone AFTER DELETE ON notes BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'note' AND host_type = '' AND object_ref = old.id;
    END`,
    `CREATE TRIGGER IF NOT EXISTS registry_links_transcript_gone AFTER DELETE ON session_transcripts BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'transcript' AND host_type = '' AND object_ref = old.session_key;
    END`,
  ],
  postgres: [...POSTGRES_REGISTRY],
};
