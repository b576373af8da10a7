import { MemoryError, parseInput } from '@memory/core';
import { findImportJob, type ImportJobRow, type ImportStatus, type SqlExecutor, updateImportJob } from '@memory/store';
import { enqueueRun, type ImportsContext } from './context.js';
import { refSchema } from './inputs.js';
import { type ImportStatusView, toStatusView } from './views.js';

/** The import named by `input` (in its scope when `agentId` is given), or `NOT_FOUND`. */
export function requireImport(sql: SqlExecutor, jobId: string, agentId: string | undefined): ImportJobRow {
  const row = findImportJob(sql, jobId, agentId);
  if (!row) throw new MemoryError('NOT_FOUND', `no import ${jobId}`, { details: { jobId } });
  return row;
}

/**
 * Moves an import from one of `from` to `to` in one transaction (`CONFLICT` from any other status),
 * runs `after` in the same transaction, and returns the updated view.
 */
function setStatus(
  ctx: ImportsContext,
  input: unknown,
  operation: string,
  transition: { from: readonly ImportStatus[]; to: ImportStatus },
  after?: (sql: SqlExecutor, row: ImportJobRow) => void,
): ImportStatusView {
  const { jobId, agentId } = parseInput(refSchema, input, operation);
  const { from, to } = transition;
  return ctx.store.write((sql) => {
    const row = requireImport(sql, jobId, agentId);
    if (!from.includes(row.status))
      throw new MemoryError('CONFLICT', `import ${jobId} is ${row.status}; ${operation} needs ${from.join(' or ')}`, {
        details: { jobId, status: row.status },
      });
    updateImportJob(sql, jobId, { status: to }, ctx.store.clock.now());
    after?.(sql, row);
    return toStatusView(sql, requireImport(sql, jobId, undefined));
  });
}

/** Stops at the next batch boundary; what was committed stays. */
export const pauseImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.pause', { from: ['queued', 'running'], to: 'paused' });

/** Continues a paused import from its checkpoint, with a new run. */
export const resumeImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.resume', { from: ['paused'], to: 'queued' }, (sql, row) =>
    enqueueRun(ctx, sql, row.id, row.agent_id),
  );

/** Stops for good at the next batch boundary; committed records stay (remove them with removeSource). */
export const cancelImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.cancel', { from: ['queued', 'running', 'paused'], to: 'cancelled' }, (_sql, row) => {
    if (row.job_id) ctx.queue.cancel({ ids: [row.job_id], apply: true });
  });
