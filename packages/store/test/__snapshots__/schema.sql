-- index connector_items_hash
CREATE INDEX connector_items_hash ON connector_items (connector_id, byte_hash);

-- index connector_items_seen
CREATE INDEX connector_items_seen ON connector_items (connector_id, seen_sync);

-- index connectors_provider
CREATE INDEX connectors_provider ON connectors (agent_id, provider);

-- index document_memories_conversion
CREATE INDEX document_memories_conversion ON document_memories (document_id, conversion);

-- index document_memories_memory
CREATE INDEX document_memories_memory ON document_memories (memory_id);

-- index documents_connector
CREATE INDEX documents_connector ON documents (connector_id);

-- index documents_hash
CREATE INDEX documents_hash ON documents (agent_id, content_hash);

-- index documents_source_path
CREATE INDEX documents_source_path ON documents (agent_id, source_path)
      WHERE source_path IS NOT NULL AND status != 'deleted';

-- index documents_source_url
CREATE INDEX documents_source_url ON documents (agent_id, source_url)
      WHERE source_url IS NOT NULL AND status != 'deleted';

-- index documents_status
CREATE INDEX documents_status ON documents (agent_id, status);

-- index dreaming_attention_agent
CREATE INDEX dreaming_attention_agent ON dreaming_attention (agent_id, resolved_at, priority);

-- index dreaming_attention_open
CREATE UNIQUE INDEX dreaming_attention_open ON dreaming_attention (agent_id, kind, subject_ref) WHERE resolved_at IS NULL;

-- index dreaming_attention_page
CREATE INDEX dreaming_attention_page ON dreaming_attention (agent_id, created_at, id);

-- index dreaming_passes_agent
CREATE INDEX dreaming_passes_agent ON dreaming_passes (agent_id, started_at);

-- index dreaming_provenance_agent_target
CREATE INDEX dreaming_provenance_agent_target ON dreaming_provenance (agent_id, target_type, target_id, seq);

-- index dreaming_provenance_pass
CREATE INDEX dreaming_provenance_pass ON dreaming_provenance (agent_id, pass_id, seq);

-- index dreaming_provenance_target
CREATE INDEX dreaming_provenance_target ON dreaming_provenance (target_type, target_id);

-- index dreaming_reverts_pass
CREATE INDEX dreaming_reverts_pass ON dreaming_reverts (agent_id, pass_id);

-- index embeddings_agent_model
CREATE INDEX embeddings_agent_model ON embeddings (agent_id, model, seq);

-- index entities_agent_canonical
CREATE UNIQUE INDEX entities_agent_canonical ON entities (agent_id, canonical_name) WHERE status = 'active';

-- index entities_agent_name
CREATE INDEX entities_agent_name ON entities (agent_id, canonical_name, id);

-- index entity_aliases_lookup
CREATE INDEX entity_aliases_lookup ON entity_aliases (agent_id, canonical_alias);

-- index entity_aspects_name
CREATE UNIQUE INDEX entity_aspects_name ON entity_aspects (entity_id, canonical_name) WHERE status = 'active';

-- index entity_attributes_aspect
CREATE INDEX entity_attributes_aspect ON entity_attributes (aspect_id, status);

-- index entity_attributes_entity
CREATE INDEX entity_attributes_entity ON entity_attributes (entity_id, status);

-- index entity_attributes_source_memory
CREATE INDEX entity_attributes_source_memory ON entity_attributes (source_memory_id) WHERE source_memory_id IS NOT NULL;

-- index entity_dependencies_source
CREATE INDEX entity_dependencies_source ON entity_dependencies (source_entity_id, status);

-- index entity_dependencies_target
CREATE INDEX entity_dependencies_target ON entity_dependencies (target_entity_id, status);

-- index import_jobs_agent
CREATE INDEX import_jobs_agent ON import_jobs (agent_id, created_at);

-- index import_records_outcome
CREATE INDEX import_records_outcome ON import_records (import_id, outcome);

-- index import_records_pending
CREATE INDEX import_records_pending ON import_records (import_id, line_no) WHERE outcome = 'pending';

-- index memories_agent_created
CREATE INDEX memories_agent_created ON memories (agent_id, created_at);

-- index memories_agent_forgotten
CREATE INDEX memories_agent_forgotten ON memories (agent_id, deleted_at) WHERE is_deleted = 1;

-- index memories_agent_hash_live
CREATE UNIQUE INDEX memories_agent_hash_live ON memories (agent_id, content_hash) WHERE is_deleted = 0;

-- index memories_agent_health
CREATE INDEX memories_agent_health ON memories (agent_id, embedding_model, last_accessed, created_at) WHERE is_deleted = 0;

-- index memories_cold_archived
CREATE INDEX memories_cold_archived ON memories_cold (archived_at);

-- index memories_deleted_at
CREATE INDEX memories_deleted_at ON memories (deleted_at) WHERE is_deleted = 1;

-- index memories_embedding_model
CREATE INDEX memories_embedding_model ON memories (embedding_model) WHERE is_deleted = 0;

-- index memories_expiring
CREATE INDEX memories_expiring ON memories (expires_at, agent_id) WHERE expires_at IS NOT NULL AND is_deleted = 0;

-- index memories_source
CREATE INDEX memories_source ON memories (source_type, source_id) WHERE source_id IS NOT NULL;

-- index memory_entity_mentions_entity
CREATE INDEX memory_entity_mentions_entity ON memory_entity_mentions (entity_id);

-- index memory_hints_agent
CREATE INDEX memory_hints_agent ON memory_hints (agent_id, memory_id);

-- index memory_history_memory
CREATE INDEX memory_history_memory ON memory_history (memory_id, seq);

-- index memory_jobs_archive_archived
CREATE INDEX memory_jobs_archive_archived ON memory_jobs_archive (archived_at);

-- index memory_jobs_completed
CREATE INDEX memory_jobs_completed ON memory_jobs (completed_at) WHERE status = 'completed';

-- index memory_jobs_dead
CREATE INDEX memory_jobs_dead ON memory_jobs (failed_at) WHERE status = 'dead';

-- index memory_jobs_dedup
CREATE UNIQUE INDEX memory_jobs_dedup ON memory_jobs (job_type, dedup_key)
    WHERE dedup_key IS NOT NULL AND status IN ('pending', 'leased');

-- index memory_jobs_leased
CREATE INDEX memory_jobs_leased ON memory_jobs (lease_expires_at) WHERE status = 'leased';

-- index memory_jobs_memory
CREATE INDEX memory_jobs_memory ON memory_jobs (memory_id);

-- index memory_jobs_pending
CREATE INDEX memory_jobs_pending ON memory_jobs (job_type, run_at) WHERE status = 'pending';

-- index memory_jobs_type_status
CREATE INDEX memory_jobs_type_status ON memory_jobs (job_type, status);

-- index memory_links_label
CREATE INDEX memory_links_label ON memory_links (agent_id, label_key) WHERE label_key IS NOT NULL;

-- index memory_links_ref
CREATE INDEX memory_links_ref ON memory_links (agent_id, ref_type, ref_id);

-- index memory_tombstones_agent
CREATE INDEX memory_tombstones_agent ON memory_tombstones (agent_id, purged_at);

-- index note_events_note
CREATE INDEX note_events_note ON note_events (note_id, seq);

-- index note_links_ref
CREATE INDEX note_links_ref ON note_links (agent_id, ref_type, ref_id, note_id);

-- index note_vectors_agent_model
CREATE INDEX note_vectors_agent_model ON note_vectors (agent_id, model);

-- index notes_active_updated
CREATE INDEX notes_active_updated ON notes (updated_at) WHERE status = 'active';

-- index notes_agent_seq
CREATE INDEX notes_agent_seq ON notes (agent_id, seq);

-- index notes_agent_status_seq
CREATE INDEX notes_agent_status_seq ON notes (agent_id, status, seq);

-- index ontology_contradictions_proposal
CREATE INDEX ontology_contradictions_proposal ON ontology_contradictions (proposal_id);

-- index ontology_proposals_agent
CREATE INDEX ontology_proposals_agent ON ontology_proposals (agent_id, status, created_at);

-- index ontology_proposals_page
CREATE INDEX ontology_proposals_page ON ontology_proposals (agent_id, created_at, id);

-- index recall_telemetry_agent
CREATE INDEX recall_telemetry_agent ON recall_telemetry (agent_id, created_at);

-- index registry_categories_name
CREATE UNIQUE INDEX registry_categories_name ON registry_categories (agent_id, normalized_name);

-- index registry_category_links_category
CREATE INDEX registry_category_links_category
      ON registry_category_links (agent_id, category_id, object_kind, host_type, object_ref);

-- index registry_category_links_object
CREATE INDEX registry_category_links_object
      ON registry_category_links (agent_id, object_kind, host_type, object_ref, category_id);

-- index registry_events_category
CREATE INDEX registry_events_category ON registry_events (agent_id, category_id, seq);

-- index relations_target
CREATE INDEX relations_target ON relations (target_entity_id);

-- index session_transcript_turns_session
CREATE INDEX session_transcript_turns_session ON session_transcript_turns (agent_id, session_key, seq);

-- index session_transcripts_completed
CREATE INDEX session_transcripts_completed ON session_transcripts (agent_id, completed_at);

-- index session_transcripts_idle
CREATE INDEX session_transcripts_idle ON session_transcripts (updated_at) WHERE completed_at IS NULL;

-- index session_transcripts_import
CREATE INDEX session_transcripts_import ON session_transcripts (source_id) WHERE source_id IS NOT NULL;

-- index session_transcripts_project
CREATE INDEX session_transcripts_project ON session_transcripts (agent_id, project);

-- index session_transcripts_source
CREATE INDEX session_transcripts_source ON session_transcripts (agent_id, source_record_id) WHERE source_record_id IS NOT NULL;

-- index vector_audits_partition
CREATE INDEX vector_audits_partition ON vector_audits (index_id, agent_id, generation, id);

-- table api_tokens
CREATE TABLE api_tokens (
      id TEXT PRIMARY KEY,
      name TEXT,
      agents TEXT NOT NULL,
      permissions TEXT NOT NULL,
      secret_hash TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      expires_at INTEGER,
      revoked_at INTEGER
    );

-- table connector_items
CREATE TABLE connector_items (
      connector_id TEXT NOT NULL REFERENCES connectors (id) ON DELETE CASCADE,
      item_key TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      version TEXT NOT NULL,
      byte_hash TEXT,
      document_id TEXT,
      seen_sync INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (connector_id, item_key)
    );

-- table connectors
CREATE TABLE connectors (
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
  );

-- table document_content_parts
CREATE TABLE document_content_parts (
      document_id TEXT NOT NULL,
      part INTEGER NOT NULL,
      text TEXT NOT NULL,
      PRIMARY KEY (document_id, part)
    );

-- table document_conversions
CREATE TABLE document_conversions (
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
    );

-- table document_memories
CREATE TABLE document_memories (
    document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL, conversion INTEGER NOT NULL DEFAULT 1, location_json TEXT,
    PRIMARY KEY (document_id, memory_id)
  );

-- table documents
CREATE TABLE documents (
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
  , source_path TEXT, conversion INTEGER NOT NULL DEFAULT 1);

-- table dreaming_attention
CREATE TABLE dreaming_attention (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('hygiene', 'review_due', 'contested_claim', 'evidence_requeue', 'surprisal')),
      subject_ref TEXT NOT NULL,
      priority INTEGER NOT NULL DEFAULT 50,
      details TEXT NOT NULL DEFAULT '',
      created_by TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      resolved_at INTEGER,
      resolved_by_pass_id TEXT,
      resolution TEXT CHECK (resolution IN ('resolved', 'declined'))
    );

-- table dreaming_evidence_exclusions
CREATE TABLE dreaming_evidence_exclusions (
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      reason TEXT NOT NULL,
      pass_id TEXT,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_ref)
    );

-- table dreaming_evidence_offsets
CREATE TABLE dreaming_evidence_offsets (
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      delivered_chars INTEGER NOT NULL,
      total_chars INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_ref)
    );

-- table dreaming_evidence_reviews
CREATE TABLE dreaming_evidence_reviews (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      source_ref TEXT NOT NULL,
      pass_id TEXT,
      verdict TEXT NOT NULL,
      notes TEXT,
      created_at INTEGER NOT NULL
    );

-- table dreaming_passes
CREATE TABLE dreaming_passes (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      trigger TEXT NOT NULL,
      mode TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'skipped')),
      usage_json TEXT NOT NULL DEFAULT '{}',
      mutations_json TEXT NOT NULL DEFAULT '{}',
      summary TEXT,
      error TEXT,
      evidence_window_json TEXT NOT NULL DEFAULT '[]',
      runbook_json TEXT NOT NULL DEFAULT '{}',
      started_at INTEGER NOT NULL,
      finished_at INTEGER
    );

-- table dreaming_provenance
CREATE TABLE dreaming_provenance (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT,
      actor TEXT NOT NULL,
      operation TEXT NOT NULL,
      target_type TEXT NOT NULL,
      target_id TEXT NOT NULL,
      evidence_json TEXT NOT NULL,
      confidence REAL,
      -- The target's row before an update or archive (renames, link updates, status changes).
      previous_json TEXT,
      created_at INTEGER NOT NULL
    , changes_json TEXT, proposal_id TEXT, reverted_at INTEGER, revert_id TEXT);

-- table dreaming_reverts
CREATE TABLE dreaming_reverts (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT NOT NULL,
      actor TEXT NOT NULL,
      reason TEXT,
      operations INTEGER NOT NULL,
      rows_restored INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );

-- table dreaming_state
CREATE TABLE dreaming_state (
      agent_id TEXT PRIMARY KEY,
      consecutive_failures INTEGER NOT NULL DEFAULT 0,
      last_failure_at INTEGER,
      last_pass_at INTEGER,
      last_mode TEXT,
      runbook TEXT NOT NULL DEFAULT '',
      updated_at INTEGER NOT NULL
    );

-- table dreaming_tool_calls
CREATE TABLE dreaming_tool_calls (
      seq INTEGER PRIMARY KEY,
      pass_id TEXT NOT NULL REFERENCES dreaming_passes (id) ON DELETE CASCADE,
      ordinal INTEGER NOT NULL,
      tool TEXT NOT NULL,
      arguments TEXT NOT NULL,
      result TEXT NOT NULL,
      ok INTEGER NOT NULL CHECK (ok IN (0, 1)),
      duration_ms REAL NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (pass_id, ordinal)
    );

-- table embedder_identities
CREATE TABLE embedder_identities (
      vector_key TEXT PRIMARY KEY,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL CHECK (dimensions > 0),
      first_used_at INTEGER NOT NULL,
      last_used_at INTEGER NOT NULL,
      UNIQUE (model, dimensions)
    );

-- table embedding_failures
CREATE TABLE embedding_failures (
      memory_id TEXT NOT NULL,
      model TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      error TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (memory_id, model)
    );

-- table embedding_migrations
CREATE TABLE embedding_migrations (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      from_key TEXT,
      to_key TEXT NOT NULL,
      changed_at INTEGER NOT NULL,
      finished_at INTEGER
    );

-- table embedding_projections
CREATE TABLE embedding_projections (
      agent_id TEXT NOT NULL,
      model TEXT NOT NULL,
      signature TEXT NOT NULL,
      point_count INTEGER NOT NULL,
      result_json TEXT NOT NULL,
      computed_ms REAL NOT NULL,
      cached_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, model)
    );

-- table embedding_reembeds
CREATE TABLE embedding_reembeds (
      agent_id TEXT NOT NULL,
      vector_key TEXT NOT NULL,
      requested_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, vector_key)
    );

-- table embeddings
CREATE TABLE embeddings (
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
  );

-- table entities
CREATE TABLE entities (
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
  );

-- table entity_aliases
CREATE TABLE entity_aliases (
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    canonical_alias TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (entity_id, canonical_alias)
  );

-- table entity_aspects
CREATE TABLE entity_aspects (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    canonical_name TEXT NOT NULL,
    weight REAL NOT NULL DEFAULT 1,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );

-- table entity_attributes
CREATE TABLE entity_attributes (
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
  , occurred_at INTEGER, time_precision TEXT);

-- table entity_communities
CREATE TABLE entity_communities (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    name TEXT,
    cohesion REAL,
    member_count INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL
  );

-- table entity_dependencies
CREATE TABLE entity_dependencies (
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
  );

-- table entity_pinning
CREATE TABLE entity_pinning (
    entity_id TEXT PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    pin_type TEXT NOT NULL CHECK (pin_type IN ('pin', 'suppress')),
    weight_override REAL,
    reason TEXT,
    created_at INTEGER NOT NULL
  );

-- table import_jobs
CREATE TABLE import_jobs (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      job_id TEXT,
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'completed', 'completed_with_rejections', 'failed', 'cancelled', 'removed')),
      source_path TEXT NOT NULL,
      file_size INTEGER,
      duplicate_mode TEXT NOT NULL DEFAULT 'skip',
      inventory_offset INTEGER NOT NULL DEFAULT 0,
      inventory_done INTEGER NOT NULL DEFAULT 0 CHECK (inventory_done IN (0, 1)),
      next_line INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      completed_at INTEGER
    );

-- table import_records
CREATE TABLE import_records (
      import_id TEXT NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
      line_no INTEGER NOT NULL,
      byte_offset INTEGER NOT NULL,
      byte_length INTEGER NOT NULL,
      raw_hash TEXT,
      outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'imported', 'duplicate', 'rejected')),
      reason TEXT,
      record_id TEXT,
      session_key TEXT,
      message_count INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (import_id, line_no)
    );

-- table import_tombstones
CREATE TABLE import_tombstones (
      agent_id TEXT NOT NULL,
      source_record_id TEXT NOT NULL,
      import_id TEXT NOT NULL,
      removed_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_record_id)
    );

-- table lifecycle_counts
CREATE TABLE lifecycle_counts (
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('duplicate_prevented', 'conflict_merged', 'reaped', 'purged')),
      day INTEGER NOT NULL,
      n INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (agent_id, kind, day)
    );

-- table maintenance_state
CREATE TABLE maintenance_state (
      task TEXT PRIMARY KEY,
      cursor INTEGER NOT NULL DEFAULT 0,
      last_run_at INTEGER,
      last_report TEXT NOT NULL DEFAULT '{}',
      updated_at INTEGER NOT NULL
    );

-- table memories
CREATE TABLE memories (
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
  , fts_scope TEXT GENERATED ALWAYS AS ('s' || hex(agent_id) || '0') VIRTUAL);

-- table memories_cold
CREATE TABLE memories_cold (
    id TEXT PRIMARY KEY,
    agent_id TEXT NOT NULL,
    row_json TEXT NOT NULL,
    reason TEXT NOT NULL,
    archived_at INTEGER NOT NULL
  );

-- table memory_counts
CREATE TABLE memory_counts (
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('live', 'forgotten', 'expiring')),
      model TEXT NOT NULL,
      recalled INTEGER NOT NULL,
      day INTEGER NOT NULL,
      n INTEGER NOT NULL,
      PRIMARY KEY (agent_id, kind, model, recalled, day)
    ) WITHOUT ROWID;

-- table memory_entity_mentions
CREATE TABLE memory_entity_mentions (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    entity_id TEXT NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    mention_text TEXT,
    confidence REAL NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (memory_id, entity_id)
  );

-- table memory_hints
CREATE TABLE memory_hints (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
      hint TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (memory_id, hint)
    );

-- table memory_history
CREATE TABLE memory_history (
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
  );

-- table memory_jobs
CREATE TABLE memory_jobs (
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
  , interruptions INTEGER NOT NULL DEFAULT 0, max_interruptions INTEGER);

-- table memory_jobs_archive
CREATE TABLE memory_jobs_archive (
      id TEXT PRIMARY KEY,
      job_type TEXT NOT NULL,
      status TEXT NOT NULL,
      row_json TEXT NOT NULL,
      archived_at INTEGER NOT NULL
    );

-- table memory_links
CREATE TABLE memory_links (
    memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    agent_id TEXT NOT NULL,
    ref_type TEXT NOT NULL,
    ref_id TEXT NOT NULL,
    label TEXT, label_key TEXT,
    PRIMARY KEY (memory_id, ref_type, ref_id)
  );

-- table memory_md_heads
CREATE TABLE memory_md_heads (
      agent_id TEXT PRIMARY KEY,
      revision INTEGER NOT NULL,
      content TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      entries_json TEXT NOT NULL,
      pass_id TEXT,
      updated_at INTEGER NOT NULL
    );

-- table memory_tombstones
CREATE TABLE memory_tombstones (
      memory_id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      reason TEXT NOT NULL CHECK (reason IN ('forgotten', 'expired')),
      removed_at INTEGER,
      purged_at INTEGER NOT NULL
    );

-- table note_events
CREATE TABLE note_events (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      note_id TEXT NOT NULL,
      agent_id TEXT NOT NULL,
      event TEXT NOT NULL CHECK (event IN ('created', 'updated', 'resolved', 'archived')),
      actor TEXT NOT NULL,
      actor_type TEXT NOT NULL CHECK (actor_type IN ('operator', 'agent', 'engine')),
      reason TEXT,
      before_json TEXT,
      after_json TEXT NOT NULL,
      metadata TEXT NOT NULL DEFAULT '{}',
      created_at INTEGER NOT NULL
    );

-- table note_links
CREATE TABLE note_links (
      note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      ref_type TEXT NOT NULL,
      ref_id TEXT NOT NULL,
      label TEXT,
      PRIMARY KEY (note_id, ref_type, ref_id)
    );

-- table note_text_postings
CREATE TABLE note_text_postings (
      scope INTEGER NOT NULL,
      term TEXT NOT NULL,
      row INTEGER NOT NULL,
      tf INTEGER NOT NULL,
      len INTEGER NOT NULL,
      PRIMARY KEY (scope, term, row)
    ) WITHOUT ROWID;

-- table note_text_scopes
CREATE TABLE note_text_scopes (
      scope INTEGER PRIMARY KEY,
      corpus TEXT NOT NULL CHECK (corpus = 'note'),
      agent_id TEXT NOT NULL,
      docs INTEGER NOT NULL DEFAULT 0,
      tokens INTEGER NOT NULL DEFAULT 0,
      UNIQUE (corpus, agent_id)
    );

-- table note_vectors
CREATE TABLE note_vectors (
      note_id TEXT NOT NULL REFERENCES notes (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL CHECK (dimensions > 0),
      content_hash TEXT NOT NULL,
      vector BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      PRIMARY KEY (note_id, model)
    );

-- table notes
CREATE TABLE notes (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      agent_id TEXT NOT NULL,
      title TEXT NOT NULL,
      content TEXT NOT NULL,
      tags TEXT NOT NULL DEFAULT '[]',
      status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'resolved', 'archived')),
      linked_entities TEXT NOT NULL DEFAULT '[]',
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      resolved_at INTEGER,
      archived_at INTEGER
    );

-- table ontology_contradictions
CREATE TABLE ontology_contradictions (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      claim_id TEXT NOT NULL,
      proposal_id TEXT,
      details TEXT NOT NULL,
      status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
      created_at INTEGER NOT NULL,
      resolved_at INTEGER
    );

-- table ontology_proposals
CREATE TABLE ontology_proposals (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      pass_id TEXT,
      actor TEXT NOT NULL,
      operation TEXT NOT NULL,
      operation_json TEXT NOT NULL,
      route TEXT NOT NULL CHECK (route IN ('shadow', 'review_required', 'contradiction')),
      reason TEXT,
      status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
      created_at INTEGER NOT NULL,
      decided_at INTEGER
    , decided_by TEXT, decision_reason TEXT);

-- table recall_telemetry
CREATE TABLE recall_telemetry (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      query TEXT NOT NULL,
      result_count INTEGER NOT NULL,
      top_score REAL,
      channels_json TEXT NOT NULL,
      vector_completeness TEXT NOT NULL,
      total_ms REAL NOT NULL,
      created_at INTEGER NOT NULL
    );

-- table registry_categories
CREATE TABLE registry_categories (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      name TEXT NOT NULL,
      normalized_name TEXT NOT NULL,
      description TEXT,
      aliases_json TEXT NOT NULL DEFAULT '[]',
      created_by TEXT NOT NULL CHECK (created_by IN ('operator', 'agent', 'engine')),
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    );

-- table registry_category_links
CREATE TABLE registry_category_links (
      category_id TEXT NOT NULL REFERENCES registry_categories (id) ON DELETE CASCADE,
      agent_id TEXT NOT NULL,
      object_kind TEXT NOT NULL CHECK (object_kind IN ('memory', 'note', 'document', 'transcript', 'host')),
      host_type TEXT NOT NULL DEFAULT '',
      object_ref TEXT NOT NULL,
      created_by TEXT NOT NULL CHECK (created_by IN ('operator', 'agent', 'engine')),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (category_id, object_kind, host_type, object_ref)
    );

-- table registry_events
CREATE TABLE registry_events (
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
    );

-- table relations
CREATE TABLE relations (
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
  );

-- table schema_migrations
CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    applied_at INTEGER NOT NULL
  );

-- table schema_migrations_audit
CREATE TABLE schema_migrations_audit (
    id INTEGER PRIMARY KEY,
    version INTEGER NOT NULL,
    name TEXT NOT NULL,
    checksum TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('applied', 'failed')),
    error TEXT,
    duration_ms REAL NOT NULL,
    started_at INTEGER NOT NULL
  );

-- table scope_erasures
CREATE TABLE scope_erasures (
      agent_id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('running', 'done')),
      step INTEGER NOT NULL DEFAULT 0,
      counts_json TEXT NOT NULL DEFAULT '{}',
      started_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      finished_at INTEGER
    );

-- table session_transcript_turns
CREATE TABLE session_transcript_turns (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      session_key TEXT NOT NULL,
      turn_key TEXT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
      content TEXT NOT NULL,
      at INTEGER,
      created_at INTEGER NOT NULL,
      FOREIGN KEY (agent_id, session_key) REFERENCES session_transcripts (agent_id, session_key) ON DELETE CASCADE,
      UNIQUE (agent_id, session_key, turn_key)
    );

-- table session_transcripts
CREATE TABLE session_transcripts (
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
  );

-- table text_postings
CREATE TABLE text_postings (
      scope INTEGER NOT NULL,
      term TEXT NOT NULL,
      row INTEGER NOT NULL,
      tf INTEGER NOT NULL,
      len INTEGER NOT NULL,
      PRIMARY KEY (scope, term, row)
    ) WITHOUT ROWID;

-- table text_scopes
CREATE TABLE text_scopes (
      scope INTEGER PRIMARY KEY,
      corpus TEXT NOT NULL CHECK (corpus IN ('memory', 'turn', 'hint')),
      agent_id TEXT NOT NULL,
      docs INTEGER NOT NULL DEFAULT 0,
      tokens INTEGER NOT NULL DEFAULT 0,
      UNIQUE (corpus, agent_id)
    );

-- table vector_audits
CREATE TABLE vector_audits (
      id INTEGER PRIMARY KEY,
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      ranks BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    );

-- table vector_builds
CREATE TABLE vector_builds (
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      phase TEXT NOT NULL CHECK (phase IN ('assign', 'cleanup')),
      target_layout TEXT NOT NULL CHECK (target_layout IN ('exact', 'ivf')),
      cursor INTEGER NOT NULL DEFAULT 0,
      queries BLOB,
      estimate BLOB,
      started_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (index_id, agent_id),
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    );

-- table vector_centroids
CREATE TABLE vector_centroids (
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      list_id INTEGER NOT NULL,
      group_id INTEGER NOT NULL,
      size INTEGER NOT NULL DEFAULT 0,
      centroid BLOB NOT NULL,
      PRIMARY KEY (index_id, agent_id, generation, list_id),
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    );

-- table vector_index_state
CREATE TABLE vector_index_state (
    name TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    dimensions INTEGER NOT NULL,
    created_at INTEGER NOT NULL
  );

-- table vector_indexes
CREATE TABLE vector_indexes (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      model TEXT NOT NULL,
      dimensions INTEGER NOT NULL CHECK (dimensions > 0),
      table_name TEXT NOT NULL UNIQUE,
      status TEXT NOT NULL CHECK (status IN ('filling', 'ready')),
      fill_cursor INTEGER NOT NULL DEFAULT 0,
      fill_until INTEGER NOT NULL DEFAULT 0,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (model, dimensions)
    );

-- table vector_partitions
CREATE TABLE vector_partitions (
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      last_generation INTEGER NOT NULL,
      layout TEXT NOT NULL CHECK (layout IN ('exact', 'ivf')),
      lists INTEGER NOT NULL DEFAULT 0,
      probes INTEGER NOT NULL DEFAULT 0,
      estimated_recall REAL,
      recall_queries INTEGER NOT NULL DEFAULT 0,
      audits INTEGER NOT NULL DEFAULT 0,
      vectors INTEGER NOT NULL DEFAULT 0,
      built_vectors INTEGER NOT NULL DEFAULT 0,
      drained_seq INTEGER NOT NULL DEFAULT 0,
      drained_vectors INTEGER NOT NULL DEFAULT 0,
      other_generation INTEGER,
      built_at INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (index_id, agent_id),
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    );

-- trigger memories_terms_ad
CREATE TRIGGER memories_terms_ad AFTER DELETE ON memories WHEN old.is_deleted = 0 BEGIN
  DELETE FROM text_postings
       WHERE 1 AND scope = (SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = old.agent_id) AND term IN (SELECT term FROM text_terms(old.content)) AND row = old.seq;
  UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(old.content)
       WHERE 1 AND corpus = 'memory' AND agent_id = old.agent_id;
END;

-- trigger memories_terms_ai
CREATE TRIGGER memories_terms_ai AFTER INSERT ON memories
      WHEN new.is_deleted = 0 AND text_index_deferred() = 0 BEGIN
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'memory', new.agent_id;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
    SELECT (SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms(new.content) AS t;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
    WHERE corpus = 'memory' AND agent_id = new.agent_id;
  INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
    SELECT new.agent_id, 'live', coalesce(new.embedding_model, ''), (new.last_accessed IS NOT NULL),
      coalesce(new.last_accessed, new.created_at) / 86400000, 1 WHERE true
    ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1;
END;

-- trigger memories_terms_au
CREATE TRIGGER memories_terms_au AFTER UPDATE OF content, is_deleted ON memories
      WHEN (old.is_deleted = 0 OR new.is_deleted = 0)
        AND (old.is_deleted IS NOT new.is_deleted OR old.content IS NOT new.content)
        AND text_index_deferred() = 0 BEGIN
  DELETE FROM text_postings
    WHERE old.is_deleted = 0 AND scope = (SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = old.agent_id)
      AND term IN (SELECT term FROM text_terms(old.content)) AND row = old.seq;
  UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(old.content)
    WHERE old.is_deleted = 0 AND corpus = 'memory' AND agent_id = old.agent_id;
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'memory', new.agent_id WHERE new.is_deleted = 0;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
    SELECT (SELECT scope FROM text_scopes WHERE corpus = 'memory' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms(new.content) AS t
    WHERE new.is_deleted = 0;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
    WHERE new.is_deleted = 0 AND corpus = 'memory' AND agent_id = new.agent_id;
END;

-- trigger memory_counts_expiring_delete
CREATE TRIGGER memory_counts_expiring_delete AFTER DELETE ON memories WHEN (OLD.is_deleted = 0 AND OLD.expires_at IS NOT NULL)
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'expiring', '', 0, 0, -1 WHERE (OLD.is_deleted = 0 AND OLD.expires_at IS NOT NULL)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; END;

-- trigger memory_counts_expiring_insert
CREATE TRIGGER memory_counts_expiring_insert AFTER INSERT ON memories WHEN (NEW.is_deleted = 0 AND NEW.expires_at IS NOT NULL)
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT NEW.agent_id, 'expiring', '', 0, 0, 1 WHERE (NEW.is_deleted = 0 AND NEW.expires_at IS NOT NULL)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1; END;

-- trigger memory_counts_expiring_update
CREATE TRIGGER memory_counts_expiring_update AFTER UPDATE OF agent_id, is_deleted, expires_at ON memories
     WHEN ((OLD.is_deleted = 0 AND OLD.expires_at IS NOT NULL)) IS NOT ((NEW.is_deleted = 0 AND NEW.expires_at IS NOT NULL)) OR OLD.agent_id IS NOT NEW.agent_id
       OR (((NEW.is_deleted = 0 AND NEW.expires_at IS NOT NULL)) AND ('' IS NOT '' OR 0 IS NOT 0 OR 0 IS NOT 0))
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'expiring', '', 0, 0, -1 WHERE (OLD.is_deleted = 0 AND OLD.expires_at IS NOT NULL)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT NEW.agent_id, 'expiring', '', 0, 0, 1 WHERE (NEW.is_deleted = 0 AND NEW.expires_at IS NOT NULL)
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1; END;

-- trigger memory_counts_forgotten_delete
CREATE TRIGGER memory_counts_forgotten_delete AFTER DELETE ON memories WHEN OLD.is_deleted = 1
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'forgotten', '', 0, 0, -1 WHERE OLD.is_deleted = 1
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; END;

-- trigger memory_counts_forgotten_insert
CREATE TRIGGER memory_counts_forgotten_insert AFTER INSERT ON memories WHEN NEW.is_deleted = 1
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT NEW.agent_id, 'forgotten', '', 0, 0, 1 WHERE NEW.is_deleted = 1
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1; END;

-- trigger memory_counts_forgotten_update
CREATE TRIGGER memory_counts_forgotten_update AFTER UPDATE OF agent_id, is_deleted ON memories
     WHEN (OLD.is_deleted = 1) IS NOT (NEW.is_deleted = 1) OR OLD.agent_id IS NOT NEW.agent_id
       OR ((NEW.is_deleted = 1) AND ('' IS NOT '' OR 0 IS NOT 0 OR 0 IS NOT 0))
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'forgotten', '', 0, 0, -1 WHERE OLD.is_deleted = 1
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT NEW.agent_id, 'forgotten', '', 0, 0, 1 WHERE NEW.is_deleted = 1
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1; END;

-- trigger memory_counts_live_delete
CREATE TRIGGER memory_counts_live_delete AFTER DELETE ON memories WHEN OLD.is_deleted = 0
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'live', coalesce(OLD.embedding_model, ''), (OLD.last_accessed IS NOT NULL), coalesce(OLD.last_accessed, OLD.created_at) / 86400000, -1 WHERE OLD.is_deleted = 0
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; END;

-- trigger memory_counts_live_update
CREATE TRIGGER memory_counts_live_update AFTER UPDATE OF agent_id, is_deleted, embedding_model, last_accessed, created_at ON memories
     WHEN (OLD.is_deleted = 0) IS NOT (NEW.is_deleted = 0) OR OLD.agent_id IS NOT NEW.agent_id
       OR ((NEW.is_deleted = 0) AND (coalesce(OLD.embedding_model, '') IS NOT coalesce(NEW.embedding_model, '') OR (OLD.last_accessed IS NOT NULL) IS NOT (NEW.last_accessed IS NOT NULL) OR coalesce(OLD.last_accessed, OLD.created_at) / 86400000 IS NOT coalesce(NEW.last_accessed, NEW.created_at) / 86400000))
     BEGIN INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT OLD.agent_id, 'live', coalesce(OLD.embedding_model, ''), (OLD.last_accessed IS NOT NULL), coalesce(OLD.last_accessed, OLD.created_at) / 86400000, -1 WHERE OLD.is_deleted = 0
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + -1; INSERT INTO memory_counts (agent_id, kind, model, recalled, day, n)
     SELECT NEW.agent_id, 'live', coalesce(NEW.embedding_model, ''), (NEW.last_accessed IS NOT NULL), coalesce(NEW.last_accessed, NEW.created_at) / 86400000, 1 WHERE NEW.is_deleted = 0
     ON CONFLICT (agent_id, kind, model, recalled, day) DO UPDATE SET n = n + 1; END;

-- trigger memory_hints_terms_ad
CREATE TRIGGER memory_hints_terms_ad AFTER DELETE ON memory_hints BEGIN
  DELETE FROM text_postings
       WHERE 1 AND scope = (SELECT scope FROM text_scopes WHERE corpus = 'hint' AND agent_id = old.agent_id) AND term IN (SELECT term FROM text_terms(old.hint)) AND row = old.seq;
  UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(old.hint)
       WHERE 1 AND corpus = 'hint' AND agent_id = old.agent_id;
END;

-- trigger memory_hints_terms_ai
CREATE TRIGGER memory_hints_terms_ai AFTER INSERT ON memory_hints BEGIN
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'hint', new.agent_id WHERE 1;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
       SELECT (SELECT scope FROM text_scopes WHERE corpus = 'hint' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms(new.hint) AS t WHERE 1;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.hint)
       WHERE 1 AND corpus = 'hint' AND agent_id = new.agent_id;
END;

-- trigger notes_terms_ad
CREATE TRIGGER notes_terms_ad AFTER DELETE ON notes BEGIN
  DELETE FROM note_text_postings
     WHERE scope = (SELECT scope FROM note_text_scopes WHERE corpus = 'note' AND agent_id = old.agent_id) AND term IN (SELECT term FROM text_terms((old.title || char(10) || old.content))) AND row = old.seq;
  UPDATE note_text_scopes SET docs = docs - 1, tokens = tokens - text_length((old.title || char(10) || old.content))
     WHERE corpus = 'note' AND agent_id = old.agent_id;
END;

-- trigger notes_terms_ai
CREATE TRIGGER notes_terms_ai AFTER INSERT ON notes BEGIN
  INSERT OR IGNORE INTO note_text_scopes (corpus, agent_id) VALUES ('note', new.agent_id);
  INSERT OR IGNORE INTO note_text_postings (scope, term, row, tf, len)
     SELECT (SELECT scope FROM note_text_scopes WHERE corpus = 'note' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms((new.title || char(10) || new.content)) AS t;
  UPDATE note_text_scopes SET docs = docs + 1, tokens = tokens + text_length((new.title || char(10) || new.content))
     WHERE corpus = 'note' AND agent_id = new.agent_id;
END;

-- trigger notes_terms_au
CREATE TRIGGER notes_terms_au AFTER UPDATE OF title, content ON notes
      WHEN old.title IS NOT new.title OR old.content IS NOT new.content BEGIN
  DELETE FROM note_text_postings
     WHERE scope = (SELECT scope FROM note_text_scopes WHERE corpus = 'note' AND agent_id = old.agent_id) AND term IN (SELECT term FROM text_terms((old.title || char(10) || old.content))) AND row = old.seq;
  UPDATE note_text_scopes SET docs = docs - 1, tokens = tokens - text_length((old.title || char(10) || old.content))
     WHERE corpus = 'note' AND agent_id = old.agent_id;
  INSERT OR IGNORE INTO note_text_scopes (corpus, agent_id) VALUES ('note', new.agent_id);
  INSERT OR IGNORE INTO note_text_postings (scope, term, row, tf, len)
     SELECT (SELECT scope FROM note_text_scopes WHERE corpus = 'note' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms((new.title || char(10) || new.content)) AS t;
  UPDATE note_text_scopes SET docs = docs + 1, tokens = tokens + text_length((new.title || char(10) || new.content))
     WHERE corpus = 'note' AND agent_id = new.agent_id;
END;

-- trigger registry_links_document_gone
CREATE TRIGGER registry_links_document_gone AFTER DELETE ON documents BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'document' AND host_type = '' AND object_ref = old.id;
    END;

-- trigger registry_links_memory_gone
CREATE TRIGGER registry_links_memory_gone AFTER DELETE ON memories BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'memory' AND host_type = '' AND object_ref = old.id;
    END;

-- trigger registry_links_note_gone
CREATE TRIGGER registry_links_note_gone AFTER DELETE ON notes BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'note' AND host_type = '' AND object_ref = old.id;
    END;

-- trigger registry_links_transcript_gone
CREATE TRIGGER registry_links_transcript_gone AFTER DELETE ON session_transcripts BEGIN
      DELETE FROM registry_category_links
      WHERE agent_id = old.agent_id AND object_kind = 'transcript' AND host_type = '' AND object_ref = old.session_key;
    END;

-- trigger transcript_turns_terms_ad
CREATE TRIGGER transcript_turns_terms_ad AFTER DELETE ON session_transcript_turns BEGIN
  DELETE FROM text_postings
       WHERE 1 AND scope = (SELECT scope FROM text_scopes WHERE corpus = 'turn' AND agent_id = old.agent_id) AND term IN (SELECT term FROM text_terms(old.content)) AND row = old.seq;
  UPDATE text_scopes SET docs = docs - 1, tokens = tokens - text_length(old.content)
       WHERE 1 AND corpus = 'turn' AND agent_id = old.agent_id;
END;

-- trigger transcript_turns_terms_ai
CREATE TRIGGER transcript_turns_terms_ai AFTER INSERT ON session_transcript_turns BEGIN
  INSERT OR IGNORE INTO text_scopes (corpus, agent_id) SELECT 'turn', new.agent_id WHERE 1;
  INSERT OR IGNORE INTO text_postings (scope, term, row, tf, len)
       SELECT (SELECT scope FROM text_scopes WHERE corpus = 'turn' AND agent_id = new.agent_id), t.term, new.seq, t.tf, t.len FROM text_terms(new.content) AS t WHERE 1;
  UPDATE text_scopes SET docs = docs + 1, tokens = tokens + text_length(new.content)
       WHERE 1 AND corpus = 'turn' AND agent_id = new.agent_id;
END;
