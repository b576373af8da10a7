import { queryBuilder } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { type Job, type JobRow, toJob } from '../job.js';

/** A job by id, in any status, or undefined. */
export function get(ctx: QueueContext, jobId: string): Job | undefined {
  const row = ctx.store.read((sql) =>
    sql.get<JobRow>(queryBuilder.selectFrom('memory_jobs').selectAll().where('id', '=', jobId).compile()),
  );
  return row ? toJob(row) : undefined;
}
