import type { Migration } from './migration.js';

// Prospective hints (questions a memory may answer later) with their own FTS index, scoped by agent;
// opt-in local recall telemetry, which stores query text and so is scoped and purgeable; and an
// index for recall's claim-currentness lookup.
export const hintsTelemetry: Migration = {
  version: 5,
  name: 'hints-telemetry',
  statements: [
    `CREATE TABLE IF NOT EXISTS memory_hints (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      memory_id TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
      hint TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      UNIQUE (memory_id, hint)
    )`,
    `CREATE INDEX IF NOT EXISTS memory_hints_agent ON memory_hints (agent_id, memory_id)`,
    `CREATE VIRTUAL TABLE IF NOT EXISTS memory_hints_fts USING fts5(
      hint, content='memory_hints', content_rowid='seq', tokenize="porter unicode61 remove_diacritics 2"
    )`,
    `CREATE TRIGGER IF NOT EXISTS memory_hints_ai AFTER INSERT ON memory_hints BEGIN
      INSERT INTO memory_hints_fts (rowid, hint) VALUES (new.seq, new.hint);
    END`,
    `CREATE TRIGGER IF NOT EXISTS memory_hints_ad AFTER DELETE ON memory_hints BEGIN
      INSERT INTO memory_hints_fts (memory_hints_fts, rowid, hint) VALUES ('delete', old.seq, old.hint);
    END`,
    // Recall asks which claims cite a memory (claim currentness).
    `CREATE INDEX IF NOT EXISTS entity_attributes_source_memory ON entity_attributes (source_memory_id) WHERE source_memory_id IS NOT NULL`,
    `CREATE TABLE IF NOT EXISTS recall_telemetry (
      seq INTEGER PRIMARY KEY,
      agent_id TEXT NOT NULL,
      query TEXT NOT NULL,
      result_count INTEGER NOT NULL,
      top_score REAL,
      channels_json TEXT NOT NULL,
      vector_completeness TEXT NOT NULL,
      total_ms REAL NOT NULL,
      created_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS recall_telemetry_agent ON recall_telemetry (agent_id, created_at)`,
  ],
};
