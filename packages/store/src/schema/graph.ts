import type { Selectable } from 'kysely';

export type ActiveStatus = 'active' | 'archived';

/** `entities`: knowledge-graph nodes, per agent. `canonical_name` is the lower-cased lookup key. */
export interface EntitiesTable {
  id: string;
  agent_id: string;
  name: string;
  canonical_name: string;
  entity_type: string;
  description: string | null;
  mentions: number;
  status: ActiveStatus;
  pinned: 0 | 1;
  community_id: string | null;
  created_at: number;
  updated_at: number;
}
export type EntityRow = Selectable<EntitiesTable>;

export interface EntityAliasesTable {
  entity_id: string;
  agent_id: string;
  alias: string;
  canonical_alias: string;
  created_at: number;
}

export interface RelationsTable {
  id: string;
  agent_id: string;
  source_entity_id: string;
  target_entity_id: string;
  relation_type: string;
  strength: number;
  mentions: number;
  confidence: number;
  metadata: string;
  created_at: number;
  updated_at: number;
}

/** `memory_entity_mentions`: which memories mention which entities. */
export interface MemoryEntityMentionsTable {
  memory_id: string;
  entity_id: string;
  agent_id: string;
  mention_text: string | null;
  confidence: number;
  created_at: number;
}
export type MentionRow = Selectable<MemoryEntityMentionsTable>;

export interface EntityAspectsTable {
  id: string;
  agent_id: string;
  entity_id: string;
  name: string;
  canonical_name: string;
  weight: number;
  status: ActiveStatus;
  created_at: number;
  updated_at: number;
}

/** `entity_attributes`: claims under aspects, bi-temporal (valid_* is event time; created/superseded_at record time). */
export interface EntityAttributesTable {
  id: string;
  agent_id: string;
  aspect_id: string;
  entity_id: string;
  claim_key: string;
  kind: 'attribute' | 'constraint';
  content: string;
  confidence: number;
  importance: number;
  status: 'active' | 'superseded' | 'archived';
  superseded_by: string | null;
  source_memory_id: string | null;
  valid_from: number | null;
  valid_until: number | null;
  evidence_json: string;
  created_at: number;
  superseded_at: number | null;
  /** When the event happened (migration 6). */
  occurred_at: number | null;
  /** instant | day | month | year | approximate (migration 6). */
  time_precision: string | null;
}

export interface EntityDependenciesTable {
  id: string;
  agent_id: string;
  source_entity_id: string;
  target_entity_id: string;
  dependency_type: string;
  strength: number;
  confidence: number;
  reason: string | null;
  status: ActiveStatus;
  created_at: number;
  updated_at: number;
}

export interface EntityCommunitiesTable {
  id: string;
  agent_id: string;
  name: string | null;
  cohesion: number | null;
  member_count: number;
  created_at: number;
}

export interface EntityPinningTable {
  entity_id: string;
  agent_id: string;
  pin_type: 'pin' | 'suppress';
  weight_override: number | null;
  reason: string | null;
  created_at: number;
}
