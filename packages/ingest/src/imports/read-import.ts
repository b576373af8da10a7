import { parseInput } from '@memory/core';
import { findScopedImportJobProgram, listImportRecordsProgram } from '@memory/store';
import type { ImportsContext } from './context.js';
import { recordsSchema, refSchema } from './inputs.js';
import { requireImport } from './set-status.js';
import { type ImportRecordView, type ImportStatusView, statusViewProgram, toRecordView } from './views.js';

/** An import's status and counters, or undefined: for another scope's import as for a missing one. */
export async function importStatus(ctx: ImportsContext, input: unknown): Promise<ImportStatusView | undefined> {
  const { agentId, jobId } = parseInput(refSchema, input, 'imports.status');
  return ctx.store.db.read(function* () {
    const row = yield* findScopedImportJobProgram(agentId, jobId);
    return row ? yield* statusViewProgram(row) : undefined;
  });
}

/**
 * Per-line outcomes in line order, paged by `afterLine`. `NOT_FOUND` outside the import's scope.
 * @default limit 100
 */
export async function importRecords(ctx: ImportsContext, input: unknown): Promise<ImportRecordView[]> {
  const request = parseInput(recordsSchema, input, 'imports.records');
  const rows = await ctx.store.db.read(function* () {
    yield* requireImport(request.agentId, request.jobId);
    return yield* listImportRecordsProgram(request.jobId, {
      outcome: request.outcome,
      afterLine: request.afterLine,
      limit: request.limit ?? 100,
    });
  });
  return rows.map(toRecordView);
}
