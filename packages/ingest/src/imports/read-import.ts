import { parseInput } from '@memory/core';
import { findImportJob, listImportRecords } from '@memory/store';
import type { ImportsContext } from './context.js';
import { recordsSchema, refSchema } from './inputs.js';
import { type ImportRecordView, type ImportStatusView, toRecordView, toStatusView } from './views.js';

/** An import's status and counters, or undefined (also outside the given agent scope). */
export function importStatus(ctx: ImportsContext, input: unknown): ImportStatusView | undefined {
  const { jobId, agentId } = parseInput(refSchema, input, 'imports.status');
  return ctx.store.read((sql) => {
    const row = findImportJob(sql, jobId, agentId);
    return row ? toStatusView(sql, row) : undefined;
  });
}

/** Per-line outcomes in line order, paged by `afterLine`. @default limit 100 */
export function importRecords(ctx: ImportsContext, input: unknown): ImportRecordView[] {
  const request = parseInput(recordsSchema, input, 'imports.records');
  return ctx.store
    .read((sql) =>
      listImportRecords(sql, request.jobId, {
        outcome: request.outcome,
        afterLine: request.afterLine,
        limit: request.limit ?? 100,
      }),
    )
    .map(toRecordView);
}
