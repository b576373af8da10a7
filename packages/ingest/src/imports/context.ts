import type { MemoryConfig } from '@memory/core';
import type { Job, PortableQueue } from '@memory/queue';
import {
  failImportOfJob,
  failImportOfJobProgram,
  findImportJobProgram,
  type ImportJobRow,
  type ImportStatus,
  type PortableStore,
  type Program,
  type SqlExecutor,
  updateImportJobProgram,
} from '@memory/store';
import type { CategoryRecordWriter } from './export-record.js';

export const TRANSCRIPT_IMPORT_JOB = 'transcript_import';

/**
 * What every import operation needs: the store, the queue that runs imports, and the import limits.
 * Every operation is one program per transaction, so it runs on SQLite and PostgreSQL alike.
 */
export interface ImportsContext {
  readonly store: PortableStore;
  /** The queue's promise API (the SQLite queue's `portable`, or the PostgreSQL queue). */
  readonly queue: PortableQueue;
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
 * Queues a run of the import and names its job on the import row, in the caller's write (the job
 * commits, or not, with the caller's rows, on either dialect). The row
 * names the one queue job allowed to work on it: a run whose job is no longer the named one (the
 * import was paused and resumed meanwhile) stops at its next batch boundary. Runs are resumable
 * jobs: every batch is a checkpoint, so an interrupted run (its process died) is never dead-lettered for it.
 */
export function* enqueueRunProgram(ctx: ImportsContext, importId: string, agentId: string): Program<void> {
  const job = yield* ctx.queue.enqueueProgram({
    jobType: TRANSCRIPT_IMPORT_JOB,
    payload: { importId },
    agentId,
    resumable: true,
  });
  yield* updateImportJobProgram(importId, { jobId: job.id }, ctx.store.clock.now());
}

/**
 * Cancels an import's queue job after the write that stopped the import committed. A run that
 * still works on it stops at its next batch boundary anyway (the import no longer names it as
 * running): cancelling only spares a pending run its start.
 */
export async function cancelRun(ctx: ImportsContext, jobId: string | null): Promise<void> {
  if (jobId) await ctx.queue.cancel({ ids: [jobId], apply: true });
}

const diedMessage = (job: Job): string =>
  `import job ${job.id} died: ${job.error ?? 'no error recorded'}; resume the import to continue from its last checkpoint`;

/**
 * The SQLite queue's dead-letter hook for import runs: the import the dead job was running says
 * `failed`, with the reason, in the same transaction. `imports.resume` continues it from its checkpoint.
 */
export function importRunDied(ctx: ImportsContext, sql: SqlExecutor, job: Job): void {
  failImportOfJob(sql, job.id, diedMessage(job), ctx.store.clock.now());
}

/** {@link importRunDied} as the PostgreSQL queue's hook: a program in the dead-lettering transaction. */
export function* importRunDiedProgram(ctx: ImportsContext, job: Job): Program<void> {
  yield* failImportOfJobProgram(job.id, diedMessage(job), ctx.store.clock.now());
}

/** Whether the run of queue job `jobId` still owns the import (it is running and names that job). */
export const owns = (live: ImportJobRow | undefined, jobId: string): live is ImportJobRow =>
  live?.status === 'running' && live.job_id === jobId;

/** Re-reads the import inside the caller's write and checks the run still owns it. */
export function* stillOwns(importId: string, jobId: string): Program<boolean> {
  return owns(yield* findImportJobProgram(importId), jobId);
}
