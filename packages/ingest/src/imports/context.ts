import type { MemoryConfig } from '@memory/core';
import type { Job, Queue } from '@memory/queue';
import {
  failImportOfJob,
  findImportJob,
  type ImportJobRow,
  type ImportStatus,
  type SqlExecutor,
  type Store,
  updateImportJob,
} from '@memory/store';
import type { CategoryRecordWriter } from './export-record.js';

export const TRANSCRIPT_IMPORT_JOB = 'transcript_import';

/** What every import operation needs: the store, the queue that runs imports, and the import limits. */
export interface ImportsContext {
  readonly store: Store;
  readonly queue: Queue;
  readonly limits: MemoryConfig['imports'];
  /** Writes `engine.export` category records (the engine's registry rules); without it they are rejected. */
  readonly writeCategory?: CategoryRecordWriter | undefined;
}

/** Statuses in which no run works on an import. */
export const STOPPED: readonly ImportStatus[] = [
  'paused',
  'cancelled',
  'removed',
  'completed',
  'completed_with_rejections',
  'failed',
];

/** The `source_id` an import's sessions carry, so the import can remove exactly what it brought in. */
export const importSourceId = (importId: string): string => `import:${importId}`;

/**
 * Queues a run of the import and names its job on the import row. The row names the one queue job
 * allowed to work on it: a run whose job is no longer the named one (the import was paused and
 * resumed meanwhile) stops at its next batch boundary. Runs are resumable jobs: every batch is a
 * checkpoint, so an interrupted run (its process died) is never dead-lettered for it.
 */
export function enqueueRun(ctx: ImportsContext, sql: SqlExecutor, importId: string, agentId: string): void {
  const job = ctx.queue.enqueue({ jobType: TRANSCRIPT_IMPORT_JOB, payload: { importId }, agentId, resumable: true });
  updateImportJob(sql, importId, { jobId: job.id }, ctx.store.clock.now());
}

/**
 * The queue's dead-letter hook for import runs: the import the dead job was running says `failed`,
 * with the reason, in the same transaction. `imports.resume` continues it from its checkpoint.
 */
export function importRunDied(ctx: ImportsContext, sql: SqlExecutor, job: Job): void {
  failImportOfJob(
    sql,
    job.id,
    `import job ${job.id} died: ${job.error ?? 'no error recorded'}; resume the import to continue from its last checkpoint`,
    ctx.store.clock.now(),
  );
}

/** Whether the run of queue job `jobId` still owns the import (it is running and names that job). */
export const owns = (live: ImportJobRow | undefined, jobId: string): live is ImportJobRow =>
  live?.status === 'running' && live.job_id === jobId;

/** Re-reads the import inside the caller's write and checks the run still owns it. */
export const stillOwns = (sql: SqlExecutor, importId: string, jobId: string): boolean =>
  owns(findImportJob(sql, importId), jobId);
