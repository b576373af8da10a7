import { stat } from 'node:fs/promises';
import { type Job, type JobContext, PermanentJobError } from '@memory/queue';
import { findImportJobProgram, type ImportJobRow, importCountersProgram, updateImportJobProgram } from '@memory/store';
import { enqueueRunProgram, type ImportsContext, owns, STOPPED } from './context.js';
import { inventoryImport } from './inventory.js';
import { processRecords } from './process-records.js';

// A run stops at a batch boundary once this share of its deadline (`queue.jobDeadlineMs`) is used,
// and the import continues in a new run: a long import is a series of runs, none of which hits
// the deadline (which would count as a failed attempt).
const SLICE_SHARE = 0.8;

/**
 * The `transcript_import` job handler: checks the file is the one the import started with, marks
 * the import running, finishes the inventory, settles every pending record, then completes the
 * import. A run that loses ownership (pause, cancel, remove, resume by a newer job) stops quietly;
 * one whose time slice is used up queues the next run; a line that changed in place since the
 * inventory fails the import.
 */
export async function runImport(ctx: ImportsContext, job: Job, context: JobContext): Promise<unknown> {
  const { store } = ctx;
  const importId = (job.payload as { importId?: unknown }).importId;
  if (typeof importId !== 'string') throw new PermanentJobError('transcript_import payload needs importId');
  const row = await store.db.read(() => findImportJobProgram(importId));
  if (!row || STOPPED.includes(row.status) || row.job_id !== job.id) return { skipped: row?.status ?? 'missing' };
  const begun = store.clock.now();
  const sliceEnd = begun + Math.max(0, context.deadline - begun) * SLICE_SHARE;
  await checkFileUnchanged(ctx, row);
  const started = await store.db.write(function* () {
    const live = yield* findImportJobProgram(row.id);
    if (!live || live.job_id !== job.id || STOPPED.includes(live.status)) return false;
    yield* updateImportJobProgram(row.id, { status: 'running', error: null }, store.clock.now());
    return true;
  });
  if (!started) return { stopped: true };
  const running = { ...row, status: 'running' as const };
  if (row.inventory_done === 0) {
    const inventory = await inventoryImport(ctx, running, job.id, context.signal, sliceEnd);
    if (inventory === 'stopped') return { stopped: true };
    if (inventory === 'sliced') return continueInNewRun(ctx, row, job.id);
  }
  const settled = await processRecords(ctx, running, job.id, context.signal, sliceEnd);
  switch (settled.kind) {
    case 'stopped':
      return { stopped: true };
    case 'sliced':
      return continueInNewRun(ctx, row, job.id);
    case 'changed':
      return failImport(
        ctx,
        row,
        job.id,
        `line ${settled.line} of import file ${row.source_path} changed since the import started (its bytes no longer match the hash recorded for it)`,
      );
    case 'done':
      return store.db.write(function* () {
        if (!owns(yield* findImportJobProgram(row.id), job.id)) return { stopped: true };
        const counters = yield* importCountersProgram(row.id);
        const now = store.clock.now();
        yield* updateImportJobProgram(
          row.id,
          { status: counters.rejected > 0 ? 'completed_with_rejections' : 'completed', completedAt: now },
          now,
        );
        return counters;
      });
  }
}

/** Queues the next run of an import whose run used up its time slice; this run completes. */
function continueInNewRun(ctx: ImportsContext, row: ImportJobRow, jobId: string): Promise<unknown> {
  return ctx.store.db.write(function* () {
    if (!owns(yield* findImportJobProgram(row.id), jobId)) return { stopped: true };
    yield* enqueueRunProgram(ctx, row.id, row.agent_id);
    return { continued: true };
  });
}

/** Fails the import for good (it says why) and the job with it: retrying cannot help. */
async function failImport(ctx: ImportsContext, row: ImportJobRow, jobId: string, message: string): Promise<never> {
  await ctx.store.db.write(function* () {
    if (owns(yield* findImportJobProgram(row.id), jobId))
      yield* updateImportJobProgram(row.id, { status: 'failed', error: message }, ctx.store.clock.now());
  });
  throw new PermanentJobError(message);
}

/**
 * Fails the import when its file is gone, is no longer a regular file, or changed size: byte
 * offsets would be wrong. (A change in place at the same size is caught line by line, by hash.)
 */
async function checkFileUnchanged(ctx: ImportsContext, row: ImportJobRow): Promise<void> {
  const info = await stat(row.source_path).catch(() => undefined);
  if (info?.isFile() && info.size === row.file_size) return;
  const message = !info
    ? `import file ${row.source_path} is gone`
    : `import file ${row.source_path} changed since the import started`;
  await ctx.store.db.write(() =>
    updateImportJobProgram(row.id, { status: 'failed', error: message }, ctx.store.clock.now()),
  );
  throw new PermanentJobError(message);
}
