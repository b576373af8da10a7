import type { Migration } from './migration.js';
import { POSTGRES_HINTS } from './postgres/memories.js';
import { POSTGRES_RECALL_TELEMETRY } from './postgres/recall.js';

// Agent-scoped memory FTS; link labels resolvable from query text; prospective hints (questions a memory may answer later) with their own FTS index, scoped by agent;
// opt-in local recall telemetry, which stores query text and so is scoped and purgeable; and an
// index for recall's claim-currentness lookup.
export const hintsTelemetry: Migration = {
  version: 5,
  name: 'hints-telemetry',
  statements: [
    // Scoped lexical search: each memory's agent becomes one FTS token in its own column, so a
    // query ANDs the agent into MATCH and FTS5 ranks only that agent's rows. Without it, other
    // agents' matches crowded the top and every query over many agents fell back to a filtered
    // join over all matches. The token is 's' + hex(agent_id) + '0': one alphanumeric token for any
    // agent id, which neither the tokenizer nor the Porter stemmer changes.
    `ALTER TABLE memories ADD COLUMN fts_scope TEXT GENERATED ALWAYS AS ('s' || hex(agent_id) || '0') VIRTUAL`,
    'DROP TRIGGER IF EXISTS memories_ai',
    'DROP TRIGGER IF EXISTS memories_ad',
    'DROP TRIGGER IF EXISTS memories_au',
    'DROP TABLE IF EXISTS memories_fts',
    `CREATE VIRTUAL TABLE memories_fts USING fts5(
      content, fts_scope, content='memories', content_rowid='seq', tokenize="porter unicode61 remove_diacritics 2"
    )`,
    `CREATE TRIGGER memories_ai AFTER INSERT ON memories BEGIN
      INSERT INTO memories_fts (rowid, content, fts_scope) VALUES (new.seq, new.content, new.fts_scope);
    END`,
    `CREATE TRIGGER memories_ad AFTER DELETE ON memories BEGIN
      INSERT INTO memories_fts (memories_fts, rowid, content, fts_scope) VALUES ('delete', old.seq, old.content, old.fts_scope);
    END`,
    `CREATE TRIGGER memories_au AFTER UPDATE OF content ON memories BEGIN
      INSERT INTO memories_fts (memories_fts, rowid, content, fts_scope) VALUES ('delete', old.seq, old.content, old.fts_scope);
      INSERT INTO memories_fts (rowid, content, fts_scope) VALUES (new.seq, new.content, new.fts_scope);
    END`,
    "INSERT INTO memories_fts (memories_fts) VALUES ('rebuild')",
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
    // Host references named in a query ("Dana Whitfield") resolve to their links through the label's
    // canonical form (NFC, lower case, whitespace collapsed: computed by the writer; existing rows
    // get SQLite's ASCII lower-casing).
    'ALTER TABLE memory_links ADD COLUMN label_key TEXT',
    'UPDATE memory_links SET label_key = lower(trim(label)) WHERE label IS NOT NULL',
    'CREATE INDEX IF NOT EXISTS memory_links_label ON memory_links (agent_id, label_key) WHERE label_key IS NOT NULL',
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
  postgres: [...POSTGRES_HINTS, ...POSTGRES_RECALL_TELEMETRY],
};
