import { get as getRow, type Program, queryBuilder } from '@memory/store/sql';
import type { QueueContext } from '../context.js';
import { type Job, type JobRow, toJob } from '../job.js';
import { readOnSqlite } from './run.js';

/** A job by id, in any status, or undefined. */
export function* getProgram(jobId: string): Program<Job | undefined> {
  const row = yield* getRow<JobRow>(queryBuilder.selectFrom('memory_jobs').selectAll().where('id', '=', jobId));
  return row ? toJob(row) : undefined;
}

/** {@link getProgram} on SQLite. */
export function get(ctx: QueueContext, jobId: string): Job | undefined {
  return readOnSqlite(ctx, getProgram(jobId));
}
