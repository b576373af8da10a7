import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

// Durable transcript import (migration 4). The repository keeps its own readonly row shapes
// (`ImportJobRow`, `ImportRecordRow` in repositories/imports.ts); these are the tables behind them.

/** `import_jobs`: one row per import of a signet-export file, with its resumable cursor. */
export interface ImportJobsTable {
  id: string;
  agent_id: string;
  job_id: string | null;
  status:
    | 'queued'
    | 'running'
    | 'paused'
    | 'completed'
    | 'completed_with_rejections'
    | 'failed'
    | 'cancelled'
    | 'removed';
  source_path: string;
  file_size: number | null;
  duplicate_mode: Generated<string>;
  inventory_offset: Generated<number>;
  inventory_done: Generated<0 | 1>;
  next_line: Generated<number>;
  error: string | null;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}
export type ImportJobsRow = Selectable<ImportJobsTable>;
export type NewImportJobsRow = Insertable<ImportJobsTable>;
export type ImportJobsUpdate = Updateable<ImportJobsTable>;

/** `import_records`: one row per non-blank line of an import, with its byte range and outcome. */
export interface ImportRecordsTable {
  import_id: string;
  line_no: number;
  byte_offset: number;
  byte_length: number;
  raw_hash: string | null;
  outcome: 'pending' | 'imported' | 'duplicate' | 'rejected';
  reason: string | null;
  record_id: string | null;
  session_key: string | null;
  message_count: number | null;
  updated_at: number;
}
export type ImportRecordsRow = Selectable<ImportRecordsTable>;

/** `import_tombstones`: a record removed with its import's source (its id and when; no content). */
export interface ImportTombstonesTable {
  agent_id: string;
  source_record_id: string;
  import_id: string;
  removed_at: number;
}
export type ImportTombstoneRow = Selectable<ImportTombstonesTable>;
