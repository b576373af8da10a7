import { raw } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { requireLease } from './lease-guard.js';

/** Extends a held lease by `config.queue.leaseMs` from now. `LEASE_LOST` if the lease is gone. */
export function heartbeat(ctx: QueueContext, jobId: string, token: string): number {
  return ctx.store.write((sql) => {
    requireLease(sql, jobId, token);
    const now = ctx.store.clock.now();
    const expiresAt = now + ctx.config.leaseMs;
    sql.run(raw('UPDATE memory_jobs SET lease_expires_at = ?, updated_at = ? WHERE id = ?', expiresAt, now, jobId));
    return expiresAt;
  });
}
