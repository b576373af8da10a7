import type { Generated, GeneratedAlways, Insertable, Selectable, Updateable } from 'kysely';

/** Memory types the engine accepts. */
export const MEMORY_TYPES = [
  'fact',
  'preference',
  'decision',
  'procedural',
  'semantic',
  'constraint',
  'document_chunk',
  'agreement',
  'incident',
  'operating_rule',
  'project_context',
] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const HISTORY_EVENTS = ['created', 'updated', 'deleted', 'recovered', 'proposal', 'none'] as const;
export type HistoryEvent = (typeof HISTORY_EVENTS)[number];

export const ACTOR_TYPES = ['operator', 'agent', 'engine'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** `memories`: durable memory rows (evidence). JSON columns hold text. */
export interface MemoriesTable {
  seq: Generated<number>;
  id: string;
  agent_id: string;
  project: string | null;
  type: MemoryType;
  category: string | null;
  content: string;
  normalized_content: string;
  content_hash: string;
  confidence: number;
  importance: number;
  source_type: string | null;
  source_id: string | null;
  tags: string;
  who: string | null;
  why: string | null;
  linked_entities: string;
  pinned: 0 | 1;
  is_deleted: 0 | 1;
  deleted_at: number | null;
  expires_at: number | null;
  access_count: number;
  last_accessed: number | null;
  update_count: number;
  embedding_model: string | null;
  created_at: number;
  updated_at: number;
  /** The agent as one FTS token (migration 5): a virtual generated column, never written. */
  fts_scope: GeneratedAlways<string>;
}
export type MemoryRow = Selectable<MemoriesTable>;
export type NewMemoryRow = Insertable<MemoriesTable>;
export type MemoryRowUpdate = Updateable<MemoriesTable>;

/** `memory_history`: the append-only audit trail of every change to a memory. */
export interface MemoryHistoryTable {
  seq: Generated<number>;
  id: string;
  memory_id: string;
  agent_id: string;
  event: HistoryEvent;
  old_content: string | null;
  new_content: string | null;
  changed_by: string;
  actor_type: ActorType;
  reason: string | null;
  metadata: string;
  session_id: string | null;
  request_id: string | null;
  created_at: number;
}
export type MemoryHistoryRow = Selectable<MemoryHistoryTable>;
export type NewMemoryHistoryRow = Insertable<MemoryHistoryTable>;

/** `memories_cold`: a lossless JSON copy of a memory row taken before it is hard-deleted or overwritten. */
export interface MemoriesColdTable {
  id: string;
  agent_id: string;
  row_json: string;
  reason: string;
  archived_at: number;
}

/** `memory_links`: `memories.linked_entities` projected into rows, for "everything linked to X". */
export interface MemoryLinksTable {
  memory_id: string;
  agent_id: string;
  ref_type: string;
  ref_id: string;
  label: string | null;
  /** The label's canonical form (see canonicalEntityName), for resolving references named in a query. */
  label_key: string | null;
}
export type MemoryLinkRow = Selectable<MemoryLinksTable>;
