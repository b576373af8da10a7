import { MemoryError } from '@memory/core';
import type { Program } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { whileLeased } from './lease-guard.js';
import { writeOnSqlite } from './run.js';
import { CLEAR_LEASE, same } from './statement.js';

/** A job result as stored: JSON text, or null. */
export function resultText(result: unknown): string | null {
  try {
    return result === undefined ? null : (JSON.stringify(result) ?? null);
  } catch (error) {
    throw new MemoryError('INVALID_INPUT', 'job result must be JSON-serializable', { cause: error });
  }
}

const COMPLETE = `UPDATE memory_jobs SET status = 'completed', result = ?, completed_at = ?, updated_at = ?, error = NULL,
  ${CLEAR_LEASE} WHERE id = ? AND status = 'leased' AND lease_token = ? RETURNING id`;

/** Marks a leased job completed with its result. `LEASE_LOST` (and no change) if the lease is gone. */
export function* completeProgram(
  ctx: ProgramContext,
  jobId: string,
  token: string,
  text: string | null,
): Program<void> {
  const now = ctx.store.clock.now();
  // Raw text rather than the builder: this is the hottest statement, and compiling costs more than it.
  yield* whileLeased(jobId, same(COMPLETE, text, now, now, jobId, token));
}

/** {@link completeProgram} on SQLite. */
export function complete(ctx: QueueContext, jobId: string, token: string, result?: unknown): void {
  const text = resultText(result);
  writeOnSqlite(ctx, completeProgram(ctx, jobId, token, text));
}
