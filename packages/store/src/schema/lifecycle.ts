import type { Generated, Selectable } from 'kysely';

/** What stays of a purged memory: no content, only its id, scope, content hash and when and why it went. */
export interface MemoryTombstonesTable {
  memory_id: string;
  agent_id: string;
  content_hash: string;
  reason: 'forgotten' | 'expired';
  /** When it was forgotten or expired. */
  removed_at: number | null;
  purged_at: number;
}

/** One row per maintenance task: where it stopped and what its last run did. */
export interface MaintenanceStateTable {
  task: string;
  cursor: number;
  last_run_at: number | null;
  last_report: string;
  updated_at: number;
}

/** One row per scope erasure, so an interrupted erase resumes with its counts. */
export interface ScopeErasuresTable {
  agent_id: string;
  status: 'running' | 'done';
  step: number;
  counts_json: string;
  started_at: number;
  updated_at: number;
  finished_at: number | null;
}

/** Daily lifecycle counters per agent. */
export interface LifecycleCountsTable {
  agent_id: string;
  kind: LifecycleCountKind;
  day: number;
  n: number;
}

export type LifecycleCountKind = 'duplicate_prevented' | 'conflict_merged' | 'reaped' | 'purged';

/** Maintained per-scope memory counts (triggers on `memories`; see migration 17). */
export interface MemoryCountsTable {
  agent_id: string;
  kind: MemoryCountKind;
  /** `live`: the embedding model ('' for none); otherwise ''. */
  model: string;
  /** `live`: 1 once recalled; otherwise 0. */
  recalled: number;
  /** `live`: the UTC day number of the last access (or creation); otherwise 0. */
  day: number;
  n: number;
}

export type MemoryCountKind = 'live' | 'forgotten' | 'expiring';

/** Every (model, dimensions) an engine opened the file with, and the key its vectors are stored under. */
export interface EmbedderIdentitiesTable {
  vector_key: string;
  model: string;
  dimensions: number;
  first_used_at: number;
  last_used_at: number;
}

/** A change of embedder identity seen at open. */
export interface EmbeddingMigrationsTable {
  id: Generated<number>;
  from_key: string | null;
  to_key: string;
  changed_at: number;
  finished_at: number | null;
}

/** Re-embedding a host asked for, per scope ('' = every scope), until done. */
export interface EmbeddingReembedsTable {
  agent_id: string;
  vector_key: string;
  requested_at: number;
}

export type MemoryTombstoneRow = Selectable<MemoryTombstonesTable>;
export type MaintenanceStateRow = Selectable<MaintenanceStateTable>;
export type ScopeErasureRow = Selectable<ScopeErasuresTable>;
