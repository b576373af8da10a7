import { MemoryError } from '@memory/core';
import { type Program, queryBuilder } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { CLEARED_LEASE } from '../job.js';
import { whileLeased } from './lease-guard.js';
import { writeOnSqlite } from './run.js';

/** A job result as stored: JSON text, or null. */
export function resultText(result: unknown): string | null {
  try {
    return result === undefined ? null : (JSON.stringify(result) ?? null);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', 'job result must be JSON-serializable', { cause: error });
  }
}

/** Marks a leased job completed with its result. `LEASE_LOST` (and no change) if the lease is gone. */
export function* completeProgram(
  ctx: ProgramContext,
  jobId: string,
  token: string,
  text: string | null,
): Program<void> {
  const now = ctx.store.clock.now();
  yield* whileLeased(
    jobId,
    queryBuilder
      .updateTable('memory_jobs')
      .set({ status: 'completed', result: text, completed_at: now, updated_at: now, error: null, ...CLEARED_LEASE })
      .where('id', '=', jobId)
      .where('status', '=', 'leased')
      .where('lease_token', '=', token)
      .returning('id'),
  );
}

/** {@link completeProgram} on SQLite. */
export function complete(ctx: QueueContext, jobId: string, token: string, result?: unknown): void {
  const text = resultText(result);
  writeOnSqlite(ctx, completeProgram(ctx, jobId, token, text));
}
