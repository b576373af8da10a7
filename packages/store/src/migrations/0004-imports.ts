import type { Migration } from './migration.js';
import { POSTGRES_IMPORTS } from './postgres/imports.js';

// Durable transcript import (signet-export v1 JSONL): one row per import, one per non-blank line with
// its byte range and outcome, and tombstones for removed sources.
export const imports: Migration = {
  version: 4,
  name: 'imports',
  statements: [
    `CREATE TABLE IF NOT EXISTS import_jobs (
      id TEXT PRIMARY KEY,
      agent_id TEXT NOT NULL,
      job_id TEXT,
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'completed', 'completed_with_rejections', 'failed', 'cancelled', 'removed')),
      source_path TEXT NOT NULL,
      file_size INTEGER,
      duplicate_mode TEXT NOT NULL DEFAULT 'skip',
      inventory_offset INTEGER NOT NULL DEFAULT 0,
      inventory_done INTEGER NOT NULL DEFAULT 0 CHECK (inventory_done IN (0, 1)),
      next_line INTEGER NOT NULL DEFAULT 0,
      error TEXT,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      completed_at INTEGER
    )`,
    `CREATE INDEX IF NOT EXISTS import_jobs_agent ON import_jobs (agent_id, created_at)`,
    `CREATE TABLE IF NOT EXISTS import_records (
      import_id TEXT NOT NULL REFERENCES import_jobs (id) ON DELETE CASCADE,
      line_no INTEGER NOT NULL,
      byte_offset INTEGER NOT NULL,
      byte_length INTEGER NOT NULL,
      raw_hash TEXT,
      outcome TEXT NOT NULL CHECK (outcome IN ('pending', 'imported', 'duplicate', 'rejected')),
      reason TEXT,
      record_id TEXT,
      session_key TEXT,
      message_count INTEGER,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (import_id, line_no)
    )`,
    `CREATE INDEX IF NOT EXISTS import_records_pending ON import_records (import_id, line_no) WHERE outcome = 'pending'`,
    `CREATE INDEX IF NOT EXISTS import_records_outcome ON import_records (import_id, outcome)`,
    `CREATE TABLE IF NOT EXISTS import_tombstones (
      agent_id TEXT NOT NULL,
      source_record_id TEXT NOT NULL,
      import_id TEXT NOT NULL,
      removed_at INTEGER NOT NULL,
      PRIMARY KEY (agent_id, source_record_id)
    )`,
    `CREATE INDEX IF NOT EXISTS session_transcripts_source ON session_transcripts (agent_id, source_record_id) WHERE source_record_id IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS session_transcripts_import ON session_transcripts (source_id) WHERE source_id IS NOT NULL`,
  ],
  postgres: [...POSTGRES_IMPORTS],
};
