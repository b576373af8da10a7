import type { QueueContext } from '../context.js';
import { type JobRow, toJob } from '../job.js';

/**
 * Tells each dead job's owner (the hook registered for its type) that it died. Called inside the
 * dead-lettering write, so the owner's record commits with it. Each hook runs in its own savepoint
 * (a nested write): a hook that fails is rolled back and logged, and never keeps the job alive or
 * undoes the dead-lettering.
 */
export function notifyDead(ctx: QueueContext, rows: readonly JobRow[]): void {
  for (const row of rows) {
    const hook = ctx.deadHooks.get(row.job_type);
    if (!hook) continue;
    try {
      ctx.store.write((sql) => {
        hook(sql, toJob(row));
      });
    } catch (error) {
      ctx.store.logger.warn('dead-letter hook failed', {
        jobId: row.id,
        jobType: row.job_type,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}
