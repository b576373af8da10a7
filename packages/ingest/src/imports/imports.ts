import type { MemoryConfig } from '@memory/core';
import type { Job, JobContext, PortableQueue } from '@memory/queue';
import type { PortableStore, Program, SqlExecutor } from '@memory/store';
import { type ImportsContext, importRunDied, importRunDiedProgram } from './context.js';
import type { CategoryRecordWriter } from './export-record.js';
import { importRecords, importStatus } from './read-import.js';
import { removeImportSource } from './remove-source.js';
import { runImport } from './run-import.js';
import { cancelImport, pauseImport, resumeImport } from './set-status.js';
import { startImport } from './start-import.js';
import type { ImportRecordView, ImportStatusView } from './views.js';

export { TRANSCRIPT_IMPORT_JOB } from './context.js';
export type { ImportRef, ListImportRecordsInput, StartImportInput } from './inputs.js';
export type { ImportCounters, ImportRecordView, ImportStatusView } from './views.js';

/** Signet-export v1 import: durable, resumable, one outcome per non-blank line. */
export interface Imports {
  /** The `transcript_import` job handler. */
  run(job: Job, context: JobContext): Promise<unknown>;
  /**
   * The SQLite queue's synchronous dead-letter hook for `transcript_import` jobs (`queue.onDead`): the
   * import the dead job ran is marked `failed` with the reason, resumable with `resume`.
   */
  runDied(sql: SqlExecutor, job: Job): void;
  /** {@link Imports.runDied} as a program, for the portable queue's `onDead` (either dialect). */
  runDiedProgram(job: Job): Program<void>;
  /** Records the file (spooling a stream first) and queues the import. Returns the import's id. */
  start(input: unknown): Promise<{ jobId: string }>;
  /** Status and counters of an import in the caller's scope, or undefined (also for other scopes). */
  status(input: unknown): Promise<ImportStatusView | undefined>;
  /** Per-line outcomes; `NOT_FOUND` outside the import's scope. */
  records(input: unknown): Promise<ImportRecordView[]>;
  /** Stops at the next batch boundary; what was committed stays. */
  pause(input: unknown): Promise<ImportStatusView>;
  /** Continues a paused or failed import from its checkpoint. */
  resume(input: unknown): Promise<ImportStatusView>;
  /** Stops for good at the next batch boundary; committed records stay (remove them with removeSource). */
  cancel(input: unknown): Promise<ImportStatusView>;
  /** Purges the sessions an import created (and their index entries); keeps tombstones. */
  removeSource(input: unknown): Promise<{ removedSessions: number }>;
}

/**
 * Creates the import operations over one store and queue. Each is a module-level function taking
 * the {@link ImportsContext}; this only binds them. Every call but `start` takes `{ agentId, jobId }`
 * and answers another scope's import exactly as one that does not exist.
 *
 * @example
 * ```ts
 * const imports = createImports({ store, queue: queue.portable, config });
 * const { jobId } = await imports.start({ agentId: 'bot', file: '/exports/signet.jsonl' });
 * ```
 */
export function createImports(deps: {
  store: PortableStore;
  queue: PortableQueue;
  config: MemoryConfig;
  writeCategory?: CategoryRecordWriter | undefined;
}): Imports {
  const ctx: ImportsContext = {
    store: deps.store,
    queue: deps.queue,
    limits: deps.config.imports,
    writeCategory: deps.writeCategory,
  };
  return Object.freeze({
    run: (job, context) => runImport(ctx, job, context),
    runDied: (sql, job) => importRunDied(ctx, sql, job),
    runDiedProgram: (job) => importRunDiedProgram(ctx, job),
    start: (input) => startImport(ctx, input),
    status: (input) => importStatus(ctx, input),
    records: (input) => importRecords(ctx, input),
    pause: (input) => pauseImport(ctx, input),
    resume: (input) => resumeImport(ctx, input),
    cancel: (input) => cancelImport(ctx, input),
    removeSource: (input) => removeImportSource(ctx, input),
  } satisfies Imports);
}
