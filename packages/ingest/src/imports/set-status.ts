import { MemoryError, parseInput } from '@memory/core';
import {
  findScopedImportJobProgram,
  type ImportJobRow,
  type ImportStatus,
  type Program,
  updateImportJobProgram,
} from '@memory/store';
import { cancelRun, enqueueRunProgram, type ImportsContext } from './context.js';
import { refSchema } from './inputs.js';
import { type ImportStatusView, statusViewProgram } from './views.js';

/**
 * The import in `agentId`'s scope, or `NOT_FOUND`: the same answer for another scope's import as for
 * one that does not exist.
 */
export function* requireImport(agentId: string, jobId: string): Program<ImportJobRow> {
  const row = yield* findScopedImportJobProgram(agentId, jobId);
  if (!row) throw new MemoryError('NOT_FOUND', `no import ${jobId} in this scope`, { details: { jobId } });
  return row;
}

/**
 * Moves an import from one of `from` to `to` in one transaction (`CONFLICT` from any other status),
 * runs `after` in the same transaction, and returns the updated view with the import as it was.
 */
async function setStatus(
  ctx: ImportsContext,
  input: unknown,
  operation: string,
  transition: { from: readonly ImportStatus[]; to: ImportStatus; clearError?: boolean },
  after?: (row: ImportJobRow) => Program<void>,
): Promise<{ view: ImportStatusView; before: ImportJobRow }> {
  const { jobId, agentId } = parseInput(refSchema, input, operation);
  const { from, to } = transition;
  return ctx.store.db.write(function* () {
    const row = yield* requireImport(agentId, jobId);
    if (!from.includes(row.status))
      throw new MemoryError('CONFLICT', `import ${jobId} is ${row.status}; ${operation} needs ${from.join(' or ')}`, {
        details: { jobId, status: row.status },
      });
    yield* updateImportJobProgram(
      jobId,
      { status: to, ...(transition.clearError ? { error: null } : {}) },
      ctx.store.clock.now(),
    );
    if (after) yield* after(row);
    return { view: yield* statusViewProgram(yield* requireImport(agentId, jobId)), before: row };
  });
}

/** Stops at the next batch boundary; what was committed stays. */
export const pauseImport = async (ctx: ImportsContext, input: unknown): Promise<ImportStatusView> =>
  (await setStatus(ctx, input, 'imports.pause', { from: ['queued', 'running'], to: 'paused' })).view;

/**
 * Continues a paused or failed import from its checkpoint, with a new run (queued in the same
 * transaction). A failed import whose cause is still there (a file that changed) fails again, saying so.
 */
export const resumeImport = async (ctx: ImportsContext, input: unknown): Promise<ImportStatusView> =>
  (
    await setStatus(
      ctx,
      input,
      'imports.resume',
      { from: ['paused', 'failed'], to: 'queued', clearError: true },
      (row) => enqueueRunProgram(ctx, row.id, row.agent_id),
    )
  ).view;

/**
 * Stops for good at the next batch boundary; committed records stay (remove them with removeSource).
 * Its queue job is cancelled once the import says `cancelled`.
 */
export async function cancelImport(ctx: ImportsContext, input: unknown): Promise<ImportStatusView> {
  const { view, before } = await setStatus(ctx, input, 'imports.cancel', {
    from: ['queued', 'running', 'paused'],
    to: 'cancelled',
  });
  await cancelRun(ctx, before.job_id);
  return view;
}
