import type { Generated, Selectable } from 'kysely';

/** `embeddings`: canonical vectors; `seq` is also the rowid of the vec0 mirror. */
export interface EmbeddingsTable {
  seq: Generated<number>;
  agent_id: string;
  source_type: string;
  source_id: string;
  content_hash: string;
  model: string;
  dimensions: number;
  vector: Buffer;
  created_at: number;
}
export type EmbeddingRow = Selectable<EmbeddingsTable>;

/** `vector_index_state`: which model and dimensions the run-time vec0 table was created for. */
export interface VectorIndexStateTable {
  name: string;
  model: string;
  dimensions: number;
  created_at: number;
}

/** `memory_hints`: prospective hints (questions a memory may answer later), indexed by `memory_hints_fts`. */
export interface MemoryHintsTable {
  seq: Generated<number>;
  agent_id: string;
  memory_id: string;
  hint: string;
  created_at: number;
}
export type MemoryHintRow = Selectable<MemoryHintsTable>;

/** `recall_telemetry`: opt-in local recall measurements; holds query text, so it is scoped and purgeable. */
export interface RecallTelemetryTable {
  seq: Generated<number>;
  agent_id: string;
  query: string;
  result_count: number;
  top_score: number | null;
  channels_json: string;
  vector_completeness: string;
  total_ms: number;
  created_at: number;
}
export type RecallTelemetryTableRow = Selectable<RecallTelemetryTable>;
