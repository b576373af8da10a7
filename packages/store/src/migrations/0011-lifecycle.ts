import type { Migration } from './migration.js';
import { POSTGRES_LIFECYCLE } from './postgres/lifecycle.js';

// The memory lifecycle (issue 13): purge with tombstones, provable deletion, scope erasure, and the
// bookkeeping of the maintenance jobs.
//
// - `memory_tombstones`: what stays of a purged memory (its id, scope, content hash, why and when it
//   went), without content. History rows keep event, time and actor; their content is cleared.
// - `memories_expiring`: purge and health find expired memories through it, never by a scan; three
//   more partial indexes make memory health a set of index range counts.
// - `maintenance_state`: one row per maintenance task (cursor, last run, last report), so a task
//   resumes where it stopped and diagnostics can show it.
// - `scope_erasures`: one row per `engine.erase`, with the table it reached and the counts so far,
//   so an erase interrupted by a crash resumes and still reports every row it removed.
// - `lifecycle_counts`: per agent and day, how many duplicates were prevented and conflicts merged
//   (memory health reads a bounded range of it).
// - FTS5 `secure-delete` on the hint and transcript-turn indexes: a deleted row's tokens leave the
//   index segments at once instead of being shadowed by a delete marker until the next merge. The
//   memory index does not use it (it made each delete about 6× slower at 100k memories); a purge or
//   an erase ends with an incremental full merge of it instead, which drops deleted rows' tokens.
export const lifecycle: Migration = {
  version: 11,
  name: 'lifecycle',
  statements: [
    `CREATE TABLE IF NOT EXISTS memory_tombstones (
      memory_id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      content_hash TEXT NOT NULL,
      reason TEXT NOT NULL CHECK (reason IN ('forgotten', 'expired')),
      removed_at INTEGER,
      purged_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS memory_tombstones_agent ON memory_tombstones (agent_id, purged_at)`,
    `CREATE INDEX IF NOT EXISTS memories_expiring ON memories (expires_at, agent_id) WHERE expires_at IS NOT NULL AND is_deleted = 0`,
    // Memory health counts per scope read these two (index-only range counts, never the rows).
    `CREATE INDEX IF NOT EXISTS memories_agent_forgotten ON memories (agent_id, deleted_at) WHERE is_deleted = 1`,
    // One walk of this covering index gives live memories per embedding model, never recalled and stale.
    `CREATE INDEX IF NOT EXISTS memories_agent_health ON memories (agent_id, embedding_model, last_accessed, created_at) WHERE is_deleted = 0`,
    // Pruning cold copies by age walks this instead of the table.
    `CREATE INDEX IF NOT EXISTS memories_cold_archived ON memories_cold (archived_at)`,
    `CREATE TABLE IF NOT EXISTS maintenance_state (
      task TEXT PRIMARY KEY,
      cursor INTEGER NOT NULL DEFAULT 0,
      last_run_at INTEGER,
      last_report TEXT NOT NULL DEFAULT '{}',
      updated_at INTEGER NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS scope_erasures (
      agent_id TEXT PRIMARY KEY,
      status TEXT NOT NULL CHECK (status IN ('running', 'done')),
      step INTEGER NOT NULL DEFAULT 0,
      counts_json TEXT NOT NULL DEFAULT '{}',
      started_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      finished_at INTEGER
    )`,
    `CREATE TABLE IF NOT EXISTS lifecycle_counts (
      agent_id TEXT NOT NULL,
      kind TEXT NOT NULL CHECK (kind IN ('duplicate_prevented', 'conflict_merged', 'reaped', 'purged')),
      day INTEGER NOT NULL,
      n INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (agent_id, kind, day)
    )`,
    // A crisis merge (every segment of a level at once, at 16) inside a purge commit took 50–150 ms
    // at 100k memories; the purge merges incrementally between its commits, so a crisis is needed
    // less often and allowed to wait longer.
    `INSERT INTO memories_fts (memories_fts, rank) VALUES ('crisismerge', 64)`,
    `INSERT INTO memory_hints_fts (memory_hints_fts, rank) VALUES ('secure-delete', 1)`,
    `INSERT INTO session_transcript_turns_fts (session_transcript_turns_fts, rank) VALUES ('secure-delete', 1)`,
  ],
  postgres: [...POSTGRES_LIFECYCLE],
};
