import type { MemoryConfig } from '@memory/core';
import type { Queue } from '@memory/queue';
import {
  findImportJob,
  type ImportJobRow,
  type ImportStatus,
  type SqlExecutor,
  type Store,
  updateImportJob,
} from '@memory/store';

export const TRANSCRIPT_IMPORT_JOB = 'transcript_import';

/** What every import operation needs: the store, the queue that runs imports, and the import limits. */
export interface ImportsContext {
  readonly store: Store;
  readonly queue: Queue;
  readonly limits: MemoryConfig['imports'];
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
 * resumed meanwhile) stops at its next batch boundary.
 */
export function enqueueRun(ctx: ImportsContext, sql: SqlExecutor, importId: string, agentId: string): void {
  const job = ctx.queue.enqueue({ jobType: TRANSCRIPT_IMPORT_JOB, payload: { importId }, agentId });
  updateImportJob(sql, importId, { jobId: job.id }, ctx.store.clock.now());
}

/** Whether the run of queue job `jobId` still owns the import (it is running and names that job). */
export const owns = (live: ImportJobRow | undefined, jobId: string): live is ImportJobRow =>
  live?.status === 'running' && live.job_id === jobId;

/** Re-reads the import inside the caller's write and checks the run still owns it. */
export const stillOwns = (sql: SqlExecutor, importId: string, jobId: string): boolean =>
  owns(findImportJob(sql, importId), jobId);
