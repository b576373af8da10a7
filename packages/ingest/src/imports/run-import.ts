import { stat } from 'node:fs/promises';
import { type Job, type JobContext, PermanentJobError } from '@memory/queue';
import { findImportJob, type ImportJobRow, importCounters, updateImportJob } from '@memory/store';
import { type ImportsContext, owns, STOPPED } from './context.js';
import { inventoryImport } from './inventory.js';
import { processRecords } from './process-records.js';

/**
 * The `transcript_import` job handler: checks the file is the one the import started with, marks
 * the import running, finishes the inventory, settles every pending record, then completes the
 * import. A run that loses ownership (pause, cancel, remove, resume by a newer job) stops quietly.
 */
export async function runImport(ctx: ImportsContext, job: Job, context: JobContext): Promise<unknown> {
  const { store } = ctx;
  const importId = (job.payload as { importId?: unknown }).importId;
  if (typeof importId !== 'string') throw new PermanentJobError('transcript_import payload needs importId');
  const row = store.read((sql) => findImportJob(sql, importId));
  if (!row || STOPPED.includes(row.status) || row.job_id !== job.id) return { skipped: row?.status ?? 'missing' };
  await checkFileUnchanged(ctx, row);
  const started = store.write((sql) => {
    const live = findImportJob(sql, row.id);
    if (!live || live.job_id !== job.id || STOPPED.includes(live.status)) return false;
    updateImportJob(sql, row.id, { status: 'running', error: null }, store.clock.now());
    return true;
  });
  if (!started) return { stopped: true };
  const running = { ...row, status: 'running' as const };
  if (row.inventory_done === 0 && !(await inventoryImport(ctx, running, job.id, context.signal)))
    return { stopped: true };
  if (!(await processRecords(ctx, running, job.id, context.signal))) return { stopped: true };
  return store.write((sql) => {
    if (!owns(findImportJob(sql, row.id), job.id)) return { stopped: true };
    const counters = importCounters(sql, row.id);
    const now = store.clock.now();
    updateImportJob(
      sql,
      row.id,
      { status: counters.rejected > 0 ? 'completed_with_rejections' : 'completed', completedAt: now },
      now,
    );
    return counters;
  });
}

/** Fails the import for good when its file is gone or its size changed: byte offsets would be wrong. */
async function checkFileUnchanged(ctx: ImportsContext, row: ImportJobRow): Promise<void> {
  const size = await stat(row.source_path).then(
    (s) => s.size,
    () => -1,
  );
  if (size === row.file_size) return;
  const message =
    size < 0
      ? `import file ${row.source_path} is gone`
      : `import file ${row.source_path} changed since the import started`;
  ctx.store.write((sql) => updateImportJob(sql, row.id, { status: 'failed', error: message }, ctx.store.clock.now()));
  throw new PermanentJobError(message);
}
