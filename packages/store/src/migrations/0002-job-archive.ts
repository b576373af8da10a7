import type { Migration } from './migration.js';
import { POSTGRES_JOB_ARCHIVE } from './postgres/queue.js';

// Queue upkeep: terminal jobs are archived (as JSON) before prune deletes them, and per-type health
// counts read an index instead of the table.
export const jobArchive: Migration = {
  version: 2,
  name: 'job-archive',
  statements: [
    `CREATE TABLE IF NOT EXISTS memory_jobs_archive (
      id TEXT PRIMARY KEY,
      job_type TEXT NOT NULL,
      status TEXT NOT NULL,
      row_json TEXT NOT NULL,
      archived_at INTEGER NOT NULL
    )`,
    `CREATE INDEX IF NOT EXISTS memory_jobs_archive_archived ON memory_jobs_archive (archived_at)`,
    `CREATE INDEX IF NOT EXISTS memory_jobs_type_status ON memory_jobs (job_type, status)`,
  ],
  postgres: POSTGRES_JOB_ARCHIVE,
};
