import type { Migration } from './migration.js';
import { POSTGRES_EMBEDDING_FAILURES } from './postgres/embedders.js';

// The vector index: one vec0 table per embedding model (created at run time, since vec0 columns
// have a fixed size), split per agent into partitions whose layout is chosen by size: `exact` (one
// list, searched whole) or `ivf` (k-means lists, the nearest ones probed). A partition's layout,
// lists, probe count and the recall measured when it was built are rows here, so every process
// sharing the file reads the same index; centroids are immutable per generation. A build writes a
// new generation beside the old one, which answers until the build commits. The partial index on
// `memories.embedding_model` finds live memories still lacking a vector for the current model.
export const vectorIndex: Migration = {
  version: 10,
  name: 'vector-index',
  statements: [
    `CREATE TABLE IF NOT EXISTS vector_indexes (
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
    )`,
    `CREATE TABLE IF NOT EXISTS vector_partitions (
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
    )`,
    `CREATE TABLE IF NOT EXISTS vector_centroids (
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      list_id INTEGER NOT NULL,
      group_id INTEGER NOT NULL,
      size INTEGER NOT NULL DEFAULT 0,
      centroid BLOB NOT NULL,
      PRIMARY KEY (index_id, agent_id, generation, list_id),
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    )`,
    `CREATE TABLE IF NOT EXISTS vector_builds (
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
    )`,
    `CREATE TABLE IF NOT EXISTS vector_audits (
      id INTEGER PRIMARY KEY,
      index_id INTEGER NOT NULL,
      agent_id TEXT NOT NULL,
      generation INTEGER NOT NULL,
      ranks BLOB NOT NULL,
      created_at INTEGER NOT NULL,
      FOREIGN KEY (index_id) REFERENCES vector_indexes (id) ON DELETE CASCADE
    )`,
    `CREATE INDEX IF NOT EXISTS vector_audits_partition ON vector_audits (index_id, agent_id, generation, id)`,
    `CREATE TABLE IF NOT EXISTS embedding_failures (
      memory_id TEXT NOT NULL,
      model TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      attempts INTEGER NOT NULL,
      error TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (memory_id, model)
    )`,
    `CREATE INDEX IF NOT EXISTS memories_embedding_model ON memories (embedding_model) WHERE is_deleted = 0`,
    // No statement reads vectors by content hash; the index cost a random B-tree insert per vector.
    `DROP INDEX IF EXISTS embeddings_hash`,
  ],
  // The vector index tables have no PostgreSQL form (see postgres/embedders.ts).
  postgres: [...POSTGRES_EMBEDDING_FAILURES],
};
