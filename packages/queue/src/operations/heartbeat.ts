import { type Program, run } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { requireLease } from './lease-guard.js';
import { writeOnSqlite } from './run.js';
import { same } from './statement.js';

/** Extends a held lease by `config.queue.leaseMs` from now. `LEASE_LOST` if the lease is gone. */
export function* heartbeatProgram(ctx: ProgramContext, jobId: string, token: string): Program<number> {
  yield* requireLease(jobId, token);
  const now = ctx.store.clock.now();
  const expiresAt = now + ctx.config.leaseMs;
  yield* run(same('UPDATE memory_jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ?', expiresAt, now, jobId));
  return expiresAt;
}

/** {@link heartbeatProgram} on SQLite. */
export function heartbeat(ctx: QueueContext, jobId: string, token: string): number {
  return writeOnSqlite(ctx, heartbeatProgram(ctx, jobId, token));
}
