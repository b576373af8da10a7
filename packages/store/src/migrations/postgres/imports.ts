// The PostgreSQL form of migration 4 (durable transcript imports): one row per import, one per
// non-blank line of its file with the line's byte range and outcome, tombstones for removed
// sources, and the indexes the import's lookups on `session_transcripts` use. Names and columns
// mirror SQLite's; INTEGER -> bigint (integer for the 0/1 flag), TEXT -> text. No triggers.

/** Migration 4: imports, their records and tombstones. */
export const POSTGRES_IMPORTS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS import_jobs (
    id text PRIMARY KEY,
    agent_id text NOT NULL,
    job_id text,
    status text NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'completed', 'completed_with_rejections', 'failed', 'cancelled', 'removed')),
    source_path text NOT NULL,
    file_size bigint,
    duplicate_mode text NOT NULL DEFAULT 'skip',
    inventory_offset bigint NOT NULL DEFAULT 0,
    inventory_done integer NOT NULL DEFAULT 0 CHECK (inventory_done IN (0, 1)),
    next_line bigint NOT NULL DEFAULT 0,
    error text,
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    completed_at bigint
  )`,
  'CREATE INDEX IF NOT EXISTS import_jobs_agent ON import_jobs (agent_id, created_at)',
  // The dead-letter hook finds the import of a dead job by its job id (SQLite scans; here many
  // engines share the table).
  'CREATE INDEX IF NOT EXISTS import_jobs_job ON import_jobs (job_id) WHERE job_id IS NOT NULL',
  `CREATE TABLE IF NOT EXISTS import_records (
    import_id text NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
    line_no bigint NOT NULL,
    byte_offset bigint NOT NULL,
    byte_length bigint NOT NULL,
    raw_hash text,
    outcome text NOT NULL CHECK (outcome IN ('pending', 'imported', 'duplicate', 'rejected')),
    reason text,
    record_id text,
    session_key text,
    message_count bigint,
    updated_at bigint NOT NULL,
    PRIMARY KEY (import_id, line_no)
  )`,
  `CREATE INDEX IF NOT EXISTS import_records_pending ON import_records (import_id, line_no) WHERE outcome = 'pending'`,
  'CREATE INDEX IF NOT EXISTS import_records_outcome ON import_records (import_id, outcome)',
  `CREATE TABLE IF NOT EXISTS import_tombstones (
    agent_id text NOT NULL,
    source_record_id text NOT NULL,
    import_id text NOT NULL,
    removed_at bigint NOT NULL,
    PRIMARY KEY (agent_id, source_record_id)
  )`,
  'CREATE INDEX IF NOT EXISTS session_transcripts_source ON session_transcripts (agent_id, source_record_id) WHERE source_record_id IS NOT NULL',
  'CREATE INDEX IF NOT EXISTS session_transcripts_import ON session_transcripts (source_id) WHERE source_id IS NOT NULL',
];
