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
