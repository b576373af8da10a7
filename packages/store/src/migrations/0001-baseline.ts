import type { Migration } from './migration.js';
import { POSTGRES_GRAPH } from './postgres/graph.js';
import { POSTGRES_MEMORIES } from './postgres/memories.js';
import { POSTGRES_QUEUE } from './postgres/queue.js';

// The baseline schema (ARCHITECTURE §4). Immutable once released: its checksum is recorded in
// schema_migrations, and a change to this text is reported as drift. Later changes are new migrations.
//
// Conventions: ids are text; times are epoch milliseconds from the injected clock; booleans are 0/1.
// Tables whose rows are indexed by FTS5 or vec0 carry an explicit `seq INTEGER PRIMARY KEY` so the
// rowid those indexes point at survives VACUUM (an implicit rowid may be renumbered).

const memories = [
  `CREATE TABLE IF NOT EXISTS memories (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    agent_id TEXT NOT NULL,
    project TEXT,
    type TEXT NOT NULL,
    category TEXT,
    content TEXT NOT NULL,
    normalized_content TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1 CHECK (confidence >= 0 AND confidence <= 1),
    importance REAL NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    source_type TEXT,
    source_id TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    who TEXT,
    why TEXT,
    linked_entities TEXT NOT NULL DEFAULT '[]',
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    is_deleted INTEGER NOT NULL DEFAULT 0 CHECK (is_deleted IN (0, 1)),
    deleted_at INTEGER,
    expires_at INTEGER,
    access_count INTEGER NOT NULL DEFAULT 0,
    last_accessed INTEGER,
    update_count INTEGER NOT NULL DEFAULT 0,
    embedding_model TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS memories_agent_hash_live ON memories (agent_id, content_hash) WHERE is_deleted = 0`,
  `CREATE INDEX IF NOT EXISTS memories_agent_created ON memories (agent_id, created_at)`,
  `CREATE INDEX IF NOT EXISTS memories_deleted_at ON memories (deleted_at) WHERE is_deleted = 1`,
  `CREATE INDEX IF NOT EXISTS memories_source ON memories (source_type, source_id) WHERE source_id IS NOT NULL`,
  `CREATE TABLE IF NOT EXISTS memory_history (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    memory_id TEXT NOT NULL,
    agent_id TEXT NOT NULL,
    event TEXT NOT NULL CHECK (event IN ('created', 'updated', 'deleted', 'recovered', 'proposal', 'none')),
    old_content TEXT,
    new_content TEXT,
    changed_by TEXT NOT NULL,
    actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'agent', 'engine')),
    reason TEXT,
    metadata TEXT NOT NULL DEFAULT '{}',
    session_id TEXT,
    request_id TEXT,
    created_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS memory_history_memory ON memory_history (memory_id, seq)`,
  // No index on created_at: history is append-only, so seq order is time order, and retention
  // walks old rows from the lowest seq in bounded pages.
  `CREATE TABLE IF NOT EXISTS memories_cold (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    row_json TEXT NOT NULL,
    reason TEXT NOT NULL,
    archived_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS memory_links (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    ref_type TEXT NOT NULL,
    ref_id TEXT NOT NULL,
    label TEXT,
    PRIMARY KEY (memory_id, ref_type, ref_id)
  )`,
  `CREATE INDEX IF NOT EXISTS memory_links_ref ON memory_links (agent_id, ref_type, ref_id)`,
];

// Porter stemming over unicode61: measured on labelled data, it lifted LoCoMo turn Recall@10 from
// 0.562 to 0.606 and SciFact nDCG@10 from 0.671 to 0.687 against plain unicode61.
const retrieval = [
  `CREATE VIRTUAL TABLE IF NOT EXISTS memories_fts USING fts5(
    content, content='memories', content_rowid='seq', tokenize="porter unicode61 remove_diacritics 2"
  )`,
  `CREATE TRIGGER IF NOT EXISTS memories_ai AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
  END`,
  `CREATE TRIGGER IF NOT EXISTS memories_ad AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
  END`,
  `CREATE TRIGGER IF NOT EXISTS memories_au AFTER UPDATE OF content ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content) VALUES ('delete', old.seq, old.content);
    INSERT INTO memories_fts (rowid, content) VALUES (new.seq, new.content);
  END`,
  `CREATE TABLE IF NOT EXISTS embeddings (
    seq INTEGER PRIMARY KEY,
    agent_id TEXT NOT NULL,
    source_type TEXT NOT NULL,
    source_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL CHECK (dimensions > 0),
    vector BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (source_type, source_id, model)
  )`,
  `CREATE INDEX IF NOT EXISTS embeddings_agent_model ON embeddings (agent_id, model, seq)`,
  `CREATE INDEX IF NOT EXISTS embeddings_hash ON embeddings (agent_id, content_hash)`,
  // The vec0 mirror's dimensions depend on the host's embedder, so vec_embeddings itself is created
  // at run time (see vector-index.ts); this row records what it was created for.
  `CREATE TABLE IF NOT EXISTS vector_index_state (
    name TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  )`,
];

const graph = [
  `CREATE TABLE IF NOT EXISTS entities (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    name TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    entity_type TEXT NOT NULL DEFAULT 'unknown',
    description TEXT,
    mentions INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1)),
    community_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS entities_agent_canonical ON entities (agent_id, canonical_name) WHERE status = 'active'`,
  `CREATE TABLE IF NOT EXISTS entity_aliases (
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    canonical_alias TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (entity_id, canonical_alias)
  )`,
  `CREATE INDEX IF NOT EXISTS entity_aliases_lookup ON entity_aliases (agent_id, canonical_alias)`,
  `CREATE TABLE IF NOT EXISTS relations (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    source_entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    target_entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    relation_type TEXT NOT NULL,
    strength REAL NOT NULL DEFAULT 1,
    mentions INTEGER NOT NULL DEFAULT 1,
    confidence REAL NOT NULL DEFAULT 1,
    metadata TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (source_entity_id, target_entity_id, relation_type)
  )`,
  `CREATE INDEX IF NOT EXISTS relations_target ON relations (target_entity_id)`,
  `CREATE TABLE IF NOT EXISTS memory_entity_mentions (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    mention_text TEXT,
    confidence REAL NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (memory_id, entity_id)
  )`,
  `CREATE INDEX IF NOT EXISTS memory_entity_mentions_entity ON memory_entity_mentions (entity_id)`,
  `CREATE TABLE IF NOT EXISTS entity_aspects (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    weight REAL NOT NULL DEFAULT 1,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS entity_aspects_name ON entity_aspects (entity_id, canonical_name) WHERE status = 'active'`,
  `CREATE TABLE IF NOT EXISTS entity_attributes (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    aspect_id TEXT NOT NULL REFERENCES entity_aspects (id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    claim_key TEXT NOT NULL,
    kind TEXT NOT NULL DEFAULT 'attribute' CHECK (kind IN ('attribute', 'constraint')),
    content TEXT NOT NULL,
    confidence REAL NOT NULL DEFAULT 1,
    importance REAL NOT NULL DEFAULT 0.5,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
    superseded_by TEXT,
    source_memory_id TEXT,
    valid_from INTEGER,
    valid_until INTEGER,
    evidence_json TEXT NOT NULL DEFAULT '[]',
    created_at INTEGER NOT NULL,
    superseded_at INTEGER
  )`,
  `CREATE INDEX IF NOT EXISTS entity_attributes_aspect ON entity_attributes (aspect_id, status)`,
  `CREATE INDEX IF NOT EXISTS entity_attributes_entity ON entity_attributes (entity_id, status)`,
  `CREATE TABLE IF NOT EXISTS entity_dependencies (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    source_entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    target_entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    dependency_type TEXT NOT NULL,
    strength REAL NOT NULL DEFAULT 1,
    confidence REAL NOT NULL DEFAULT 1,
    reason TEXT,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS entity_dependencies_source ON entity_dependencies (source_entity_id, status)`,
  `CREATE INDEX IF NOT EXISTS entity_dependencies_target ON entity_dependencies (target_entity_id, status)`,
  `CREATE TABLE IF NOT EXISTS entity_communities (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    name TEXT,
    cohesion REAL,
    member_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS entity_pinning (
    entity_id TEXT PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    pin_type TEXT NOT NULL CHECK (pin_type IN ('pin', 'suppress')),
    weight_override REAL,
    reason TEXT,
    created_at INTEGER NOT NULL
  )`,
];

const transcripts = [
  `CREATE TABLE IF NOT EXISTS session_transcripts (
    agent_id TEXT NOT NULL,
    session_key TEXT NOT NULL,
    content TEXT NOT NULL DEFAULT '',
    harness TEXT,
    project TEXT,
    content_hash TEXT,
    source_id TEXT,
    source_record_id TEXT,
    source_meta_json TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    completed_at INTEGER,
    PRIMARY KEY (agent_id, session_key)
  )`,
  `CREATE INDEX IF NOT EXISTS session_transcripts_project ON session_transcripts (agent_id, project)`,
  `CREATE INDEX IF NOT EXISTS session_transcripts_completed ON session_transcripts (agent_id, completed_at)`,
];

const documents = [
  `CREATE TABLE IF NOT EXISTS connectors (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    provider TEXT NOT NULL,
    display_name TEXT,
    config_json TEXT NOT NULL DEFAULT '{}',
    cursor_json TEXT,
    status TEXT NOT NULL DEFAULT 'idle' CHECK (status IN ('idle', 'syncing', 'error')),
    last_sync_at INTEGER,
    last_error TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE INDEX IF NOT EXISTS connectors_provider ON connectors (agent_id, provider)`,
  `CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    project TEXT,
    source_url TEXT,
    source_type TEXT NOT NULL CHECK (source_type IN ('url', 'text', 'file')),
    content_type TEXT,
    content_hash TEXT,
    title TEXT,
    raw_content TEXT,
    status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN
      ('queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed', 'deleted')),
    error TEXT,
    connector_id TEXT REFERENCES connectors (id) ON DELETE SET NULL,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    memory_count INTEGER NOT NULL DEFAULT 0,
    metadata_json TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    completed_at INTEGER
  )`,
  `CREATE INDEX IF NOT EXISTS documents_status ON documents (agent_id, status)`,
  `CREATE INDEX IF NOT EXISTS documents_hash ON documents (agent_id, content_hash)`,
  `CREATE INDEX IF NOT EXISTS documents_connector ON documents (connector_id)`,
  `CREATE TABLE IF NOT EXISTS document_memories (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    PRIMARY KEY (document_id, memory_id)
  )`,
  `CREATE INDEX IF NOT EXISTS document_memories_memory ON document_memories (memory_id)`,
];

const queue = [
  `CREATE TABLE IF NOT EXISTS memory_jobs (
    id TEXT PRIMARY KEY,
    job_type TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'leased', 'completed', 'dead', 'cancelled')),
    dedup_key TEXT,
    payload TEXT NOT NULL DEFAULT '{}',
    result TEXT,
    attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts INTEGER NOT NULL DEFAULT 3 CHECK (max_attempts > 0),
    run_at INTEGER NOT NULL,
    lease_token TEXT,
    lease_expires_at INTEGER,
    leased_at INTEGER,
    leased_by TEXT,
    completed_at INTEGER,
    failed_at INTEGER,
    error TEXT,
    memory_id TEXT,
    document_id TEXT,
    agent_id TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS memory_jobs_dedup ON memory_jobs (job_type, dedup_key)
    WHERE dedup_key IS NOT NULL AND status IN ('pending', 'leased')`,
  `CREATE INDEX IF NOT EXISTS memory_jobs_pending ON memory_jobs (job_type, run_at) WHERE status = 'pending'`,
  `CREATE INDEX IF NOT EXISTS memory_jobs_leased ON memory_jobs (lease_expires_at) WHERE status = 'leased'`,
  `CREATE INDEX IF NOT EXISTS memory_jobs_completed ON memory_jobs (completed_at) WHERE status = 'completed'`,
  `CREATE INDEX IF NOT EXISTS memory_jobs_dead ON memory_jobs (failed_at) WHERE status = 'dead'`,
  `CREATE INDEX IF NOT EXISTS memory_jobs_memory ON memory_jobs (memory_id)`,
];

export const baseline: Migration = {
  version: 1,
  name: 'baseline',
  statements: [...memories, ...retrieval, ...graph, ...transcripts, ...documents, ...queue],
  postgres: [...POSTGRES_MEMORIES, ...POSTGRES_QUEUE, ...POSTGRES_GRAPH],
};
