// The PostgreSQL form of the memory lifecycle's tables (migration 11): tombstones of purged
// memories, maintenance task state, scope erasures and the daily lifecycle counters. Names and
// columns mirror SQLite's. The indexes migration 11 adds to `memories` and `memories_cold` on SQLite
// are already part of their PostgreSQL form (memories.ts). What migration 11 does to SQLite's FTS5
// tables (crisis merge, `secure-delete`) has no meaning here: PostgreSQL's text index is our own
// postings table, whose rows a purge or an erase deletes like any other.

/** Migration 11: tombstones, maintenance state, scope erasures, lifecycle counters. */
export const POSTGRES_LIFECYCLE: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS memory_tombstones (
    memory_id text PRIMARY KEY,
    agent_id text NOT NULL,
    content_hash text NOT NULL,
    reason text NOT NULL CHECK (reason IN ('forgotten', 'expired')),
    removed_at bigint,
    purged_at bigint NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS memory_tombstones_agent ON memory_tombstones (agent_id, purged_at)',
  `CREATE TABLE IF NOT EXISTS maintenance_state (
    task text PRIMARY KEY,
    cursor bigint NOT NULL DEFAULT 0,
    last_run_at bigint,
    last_report text NOT NULL DEFAULT '{}',
    updated_at bigint NOT NULL
  )`,
  `CREATE TABLE IF NOT EXISTS scope_erasures (
    agent_id text PRIMARY KEY,
    status text NOT NULL CHECK (status IN ('running', 'done')),
    step integer NOT NULL DEFAULT 0,
    counts_json text NOT NULL DEFAULT '{}',
    started_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    finished_at bigint
  )`,
  `CREATE TABLE IF NOT EXISTS lifecycle_counts (
    agent_id text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('duplicate_prevented', 'conflict_merged', 'reaped', 'purged')),
    day bigint NOT NULL,
    n bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (agent_id, kind, day)
  )`,
];
