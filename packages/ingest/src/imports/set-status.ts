import { MemoryError, parseInput } from '@memory/core';
import {
  findScopedImportJob,
  type ImportJobRow,
  type ImportStatus,
  type SqlExecutor,
  updateImportJob,
} from '@memory/store';
import { enqueueRun, type ImportsContext } from './context.js';
import { refSchema } from './inputs.js';
import { type ImportStatusView, toStatusView } from './views.js';

/**
 * The import in `agentId`'s scope, or `NOT_FOUND`: the same answer for another scope's import as for
 * one that does not exist.
 */
export function requireImport(sql: SqlExecutor, agentId: string, jobId: string): ImportJobRow {
  const row = findScopedImportJob(sql, agentId, jobId);
  if (!row) throw new MemoryError('NOT_FOUND', `no import ${jobId} in this scope`, { details: { jobId } });
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
  transition: { from: readonly ImportStatus[]; to: ImportStatus; clearError?: boolean },
  after?: (sql: SqlExecutor, row: ImportJobRow) => void,
): ImportStatusView {
  const { jobId, agentId } = parseInput(refSchema, input, operation);
  const { from, to } = transition;
  return ctx.store.write((sql) => {
    const row = requireImport(sql, agentId, jobId);
    if (!from.includes(row.status))
      throw new MemoryError('CONFLICT', `import ${jobId} is ${row.status}; ${operation} needs ${from.join(' or ')}`, {
        details: { jobId, status: row.status },
      });
    updateImportJob(
      sql,
      jobId,
      { status: to, ...(transition.clearError ? { error: null } : {}) },
      ctx.store.clock.now(),
    );
    after?.(sql, row);
    return toStatusView(sql, requireImport(sql, agentId, jobId));
  });
}

/** Stops at the next batch boundary; what was committed stays. */
export const pauseImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.pause', { from: ['queued', 'running'], to: 'paused' });

/**
 * Continues a paused or failed import from its checkpoint, with a new run. A failed import whose
 * cause is still there (a file that changed) fails again, saying so.
 */
export const resumeImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.resume', { from: ['paused', 'failed'], to: 'queued', clearError: true }, (sql, row) =>
    enqueueRun(ctx, sql, row.id, row.agent_id),
  );

/** Stops for good at the next batch boundary; committed records stay (remove them with removeSource). */
export const cancelImport = (ctx: ImportsContext, input: unknown): ImportStatusView =>
  setStatus(ctx, input, 'imports.cancel', { from: ['queued', 'running', 'paused'], to: 'cancelled' }, (_sql, row) => {
    if (row.job_id) ctx.queue.cancel({ ids: [row.job_id], apply: true });
  });
