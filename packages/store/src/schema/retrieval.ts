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

/** `vector_indexes`: one vec0 table per embedding model and dimension count. */
export interface VectorIndexesTable {
  id: Generated<number>;
  model: string;
  dimensions: number;
  table_name: string;
  /** `filling`: vectors stored before the index existed are still being copied in (seq ≤ `fill_until`). */
  status: 'filling' | 'ready';
  fill_cursor: number;
  fill_until: number;
  created_at: number;
  updated_at: number;
}
export type VectorIndexRow = Selectable<VectorIndexesTable>;

/** `vector_partitions`: one agent's part of a vector index, its layout and what its build measured. */
export interface VectorPartitionsTable {
  index_id: number;
  agent_id: string;
  /** The generation queries read; its rows are vec0 rowids `generation · 2^40 + seq`. */
  generation: number;
  /** The highest generation the partition has used (a new build takes the next; numbers never repeat). */
  last_generation: number;
  layout: 'exact' | 'ivf';
  lists: number;
  probes: number;
  /** Neighbour recall@10 the build measured at `probes` (ivf only). */
  estimated_recall: number | null;
  /** Sample queries (at build) or audited real queries behind `estimated_recall`. */
  recall_queries: number;
  /** Real queries of this generation audited against an exact search. */
  audits: number;
  /** Live vectors in the partition (kept by the writer). */
  vectors: number;
  built_vectors: number;
  /** ivf: vectors with a larger seq wait in the unassigned list. */
  drained_seq: number;
  /** ivf: `vectors` when the lists last took in every fresh vector (the difference is about how many wait). */
  drained_vectors: number;
  /** A generation being built or being removed: writers delete from it too. */
  other_generation: number | null;
  built_at: number | null;
  updated_at: number;
}
export type VectorPartitionRow = Selectable<VectorPartitionsTable>;

/** `vector_centroids`: the k-means centroids of one ivf generation (immutable once written). */
export interface VectorCentroidsTable {
  index_id: number;
  agent_id: string;
  generation: number;
  list_id: number;
  /** The coarse group the list belongs to (two-level assignment). */
  group_id: number;
  /** Vectors assigned when built or drained. */
  size: number;
  centroid: Buffer;
}

/** `vector_builds`: a partition rebuild in progress (resumable: the cursor commits with each batch). */
export interface VectorBuildsTable {
  index_id: number;
  agent_id: string;
  generation: number;
  phase: 'assign' | 'cleanup';
  target_layout: 'exact' | 'ivf';
  cursor: number;
  /** The recall estimate's sample queries (float32) and running top-10 state (float64). */
  queries: Buffer | null;
  estimate: Buffer | null;
  started_at: number;
  updated_at: number;
}

/** `vector_audits`: a real query of an ivf generation searched again exactly: each true neighbour's list rank. */
export interface VectorAuditsTable {
  id: Generated<number>;
  index_id: number;
  agent_id: string;
  generation: number;
  /** Float64 per true neighbour: the rank of its list among the query's nearest centroids; -1 = the fresh list. */
  ranks: Buffer;
  created_at: number;
}

/** `embedding_failures`: memories an embedder could not embed, so the fill-in job stops retrying them. */
export interface EmbeddingFailuresTable {
  memory_id: string;
  model: string;
  content_hash: string;
  attempts: number;
  error: string;
  updated_at: number;
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

/** `embedding_projections` (migration 14): the embedding map's 2-D projection per agent and model. */
export interface EmbeddingProjectionsTable {
  agent_id: string;
  model: string;
  /** What it was computed from: vector count, newest vector row, point limit. */
  signature: string;
  point_count: number;
  /** `[[memoryId, x, y], ...]` */
  result_json: string;
  computed_ms: number;
  cached_at: number;
}

/** `text_scopes`: one per agent and corpus (memory, turn, hint) of the scoped text index, with its counts (migration 13). */
export interface TextScopesTable {
  scope: Generated<number>;
  corpus: 'memory' | 'turn' | 'hint';
  agent_id: string;
  /** Indexed rows (live memories, turns, hints). */
  docs: Generated<number>;
  /** Their tokens in all, stop words included. */
  tokens: Generated<number>;
}

/** `text_postings`: one per scope, term and row: the term's count in the row and the row's length. */
export interface TextPostingsTable {
  scope: number;
  term: string;
  row: number;
  tf: number;
  len: number;
}
