import { parseInput } from '@memory/core';
import { findScopedImportJob, listImportRecords } from '@memory/store';
import type { ImportsContext } from './context.js';
import { recordsSchema, refSchema } from './inputs.js';
import { requireImport } from './set-status.js';
import { type ImportRecordView, type ImportStatusView, toRecordView, toStatusView } from './views.js';

/** An import's status and counters, or undefined: for another scope's import as for a missing one. */
export function importStatus(ctx: ImportsContext, input: unknown): ImportStatusView | undefined {
  const { agentId, jobId } = parseInput(refSchema, input, 'imports.status');
  return ctx.store.read((sql) => {
    const row = findScopedImportJob(sql, agentId, jobId);
    return row ? toStatusView(sql, row) : undefined;
  });
}

/**
 * Per-line outcomes in line order, paged by `afterLine`. `NOT_FOUND` outside the import's scope.
 * @default limit 100
 */
export function importRecords(ctx: ImportsContext, input: unknown): ImportRecordView[] {
  const request = parseInput(recordsSchema, input, 'imports.records');
  return ctx.store
    .read((sql) => {
      requireImport(sql, request.agentId, request.jobId);
      return listImportRecords(sql, request.jobId, {
        outcome: request.outcome,
        afterLine: request.afterLine,
        limit: request.limit ?? 100,
      });
    })
    .map(toRecordView);
}
