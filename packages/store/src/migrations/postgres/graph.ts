// PostgreSQL forms of the knowledge graph's tables (SQLite: 0001-baseline's `graph` list). Entities,
// their aliases and mentions are in memories.ts (the memory writer links them inline). Columns later
// SQLite migrations added (0006's occurred_at/time_precision) are in the CREATE here, in SQLite's
// column order, and 0005's attribute index too: the PostgreSQL schema starts at today's shape.

/** Migration 1 (baseline): relations, aspects, attributes, dependencies, communities, pinning. */
export const POSTGRES_GRAPH: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS relations (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    source_entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    target_entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    relation_type text NOT NULL,
    strength double precision NOT NULL DEFAULT 1,
    mentions bigint NOT NULL DEFAULT 1,
    confidence double precision NOT NULL DEFAULT 1,
    metadata text NOT NULL DEFAULT '{}',
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    UNIQUE (source_entity_id, target_entity_id, relation_type)
  )`,
  'CREATE INDEX IF NOT EXISTS relations_target ON relations (target_entity_id)',
  `CREATE TABLE IF NOT EXISTS entity_aspects (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    name text NOT NULL,
    canonical_name text NOT NULL,
    weight double precision NOT NULL DEFAULT 1,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  `CREATE UNIQUE INDEX IF NOT EXISTS entity_aspects_name ON entity_aspects (entity_id, canonical_name) WHERE status = 'active'`,
  `CREATE TABLE IF NOT EXISTS entity_attributes (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    aspect_id text NOT NULL REFERENCES entity_aspects (id) ON DELETE CASCADE,
    entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    claim_key text NOT NULL,
    kind text NOT NULL DEFAULT 'attribute' CHECK (kind IN ('attribute', 'constraint')),
    content text NOT NULL,
    confidence double precision NOT NULL DEFAULT 1,
    importance double precision NOT NULL DEFAULT 0.5,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'superseded', 'archived')),
    superseded_by text,
    source_memory_id text,
    valid_from bigint,
    valid_until bigint,
    evidence_json text NOT NULL DEFAULT '[]',
    created_at bigint NOT NULL,
    superseded_at bigint,
    occurred_at bigint,
    time_precision text
  )`,
  'CREATE INDEX IF NOT EXISTS entity_attributes_aspect ON entity_attributes (aspect_id, status)',
  'CREATE INDEX IF NOT EXISTS entity_attributes_entity ON entity_attributes (entity_id, status)',
  'CREATE INDEX IF NOT EXISTS entity_attributes_source_memory ON entity_attributes (source_memory_id) WHERE source_memory_id IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS entity_dependencies (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    source_entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    target_entity_id text NOT NULL REFERENCES entities (id) ON DELETE CASCADE,
    dependency_type text NOT NULL,
    strength double precision NOT NULL DEFAULT 1,
    confidence double precision NOT NULL DEFAULT 1,
    reason text,
    status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS entity_dependencies_source ON entity_dependencies (source_entity_id, status)',
  'CREATE INDEX IF NOT EXISTS entity_dependencies_target ON entity_dependencies (target_entity_id, status)',
  `CREATE TABLE IF NOT EXISTS entity_communities (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    name text,
    cohesion double precision,
    member_count bigint NOT NULL DEFAULT 0,
    created_at bigint NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS entity_pinning (
    entity_id text PRIMARY KEY REFERENCES entities (id) ON DELETE CASCADE,
    agent_id text NOT NULL,
    pin_type text NOT NULL CHECK (pin_type IN ('pin', 'suppress')),
    weight_override double precision,
    reason text,
    created_at bigint NOT NULL
  )`,
];
