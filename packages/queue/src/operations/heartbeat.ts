import type { Program } from '@memory/store/sql';
import type { ProgramContext, QueueContext } from '../context.js';
import { whileLeased } from './lease-guard.js';
import { writeOnSqlite } from './run.js';
import { same } from './statement.js';

/** Extends a held lease by `config.queue.leaseMs` from now. `LEASE_LOST` if the lease is gone. */
export function* heartbeatProgram(ctx: ProgramContext, jobId: string, token: string): Program<number> {
  const now = ctx.store.clock.now();
  const expiresAt = now + ctx.config.leaseMs;
  yield* whileLeased(
    jobId,
    same(
      "UPDATE memory_jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ? AND status = 'leased' AND lease_token = ? RETURNING id",
      expiresAt,
      now,
      jobId,
      token,
    ),
  );
  return expiresAt;
}

/** {@link heartbeatProgram} on SQLite. */
export function heartbeat(ctx: QueueContext, jobId: string, token: string): number {
  return writeOnSqlite(ctx, heartbeatProgram(ctx, jobId, token));
}
