import { type Program, run } from '@memory/store/sql';
import type { PostgresDeadJobHook, QueueContext } from '../context.js';
import { type JobRow, toJob } from '../job.js';
import { same } from './statement.js';

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

/** A dead-letter hook that failed (its savepoint rolled back), logged after the transaction commits. */
export interface HookFailure {
  readonly jobId: string;
  readonly jobType: string;
  readonly error: string;
}

// A conflict with a concurrent transaction is not the hook's failure: the whole write is re-run.
function isConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '40001' || code === '40P01';
}

/**
 * The PostgreSQL form of {@link notifyDead}: each dead job's hook program runs in the dead-lettering
 * transaction, in a savepoint of its own, so a hook that fails is rolled back alone and never keeps
 * the job alive. Failures are returned (not logged here: the transaction may be re-run).
 */
export function* notifyDeadProgram(
  hooks: ReadonlyMap<string, PostgresDeadJobHook>,
  rows: readonly JobRow[],
): Program<HookFailure[]> {
  const failures: HookFailure[] = [];
  for (const row of rows) {
    const hook = hooks.get(row.job_type);
    if (!hook) continue;
    yield* run(same('SAVEPOINT memory_dead_hook'));
    try {
      yield* hook(toJob(row));
      yield* run(same('RELEASE SAVEPOINT memory_dead_hook'));
    } catch (error) {
      if (isConflict(error)) throw error;
      yield* run(same('ROLLBACK TO SAVEPOINT memory_dead_hook'));
      yield* run(same('RELEASE SAVEPOINT memory_dead_hook'));
      failures.push({
        jobId: row.id,
        jobType: row.job_type,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return failures;
}
