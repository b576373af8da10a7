import type { Selectable } from 'kysely';

export type JobStatus = 'pending' | 'leased' | 'completed' | 'dead' | 'cancelled';

/** `memory_jobs`: the durable job queue. */
export interface MemoryJobsTable {
  id: string;
  job_type: string;
  status: JobStatus;
  dedup_key: string | null;
  payload: string;
  result: string | null;
  /** Attempts used: failed runs, plus the run holding the lease. An interrupted run gives its attempt back. */
  attempts: number;
  max_attempts: number;
  /** Runs whose lease expired (the process running them died or hung). */
  interruptions: number;
  /** Interruptions after which the job is dead-lettered; null: never (a resumable job). */
  max_interruptions: number | null;
  run_at: number;
  lease_token: string | null;
  lease_expires_at: number | null;
  leased_at: number | null;
  leased_by: string | null;
  completed_at: number | null;
  failed_at: number | null;
  error: string | null;
  memory_id: string | null;
  document_id: string | null;
  agent_id: string | null;
  created_at: number;
  updated_at: number;
}
export type MemoryJobRow = Selectable<MemoryJobsTable>;

/** `memory_jobs_archive`: terminal jobs copied here (as JSON) before prune removes them. */
export interface MemoryJobsArchiveTable {
  id: string;
  job_type: string;
  status: JobStatus;
  row_json: string;
  archived_at: number;
}
