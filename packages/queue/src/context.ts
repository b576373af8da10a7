import type { Clock, IdGenerator, MemoryConfig } from '@memory/core';
import type { SqlExecutor, Store } from '@memory/store';
import type { Program } from '@memory/store/sql';
import type { Job, JobRow } from './job.js';

/**
 * Told, inside the transaction that dead-letters a job of its type, that the job died (its `error`
 * says why), so the job's owner (an import, a document) can record it in the same commit.
 */
export type DeadJobHook = (sql: SqlExecutor, job: Job) => void;

/**
 * The PostgreSQL form of {@link DeadJobHook}: a program run inside the transaction that
 * dead-letters the job (in a savepoint of its own, so a failing hook is rolled back alone).
 */
export type PostgresDeadJobHook = (job: Job) => Program<void>;

/** What the queue's programs need, on either dialect: clock, ids and the queue config. */
export interface ProgramContext {
  readonly store: { readonly clock: Clock; readonly ids: IdGenerator };
  readonly config: MemoryConfig['queue'];
}

/**
 * What every queue operation on SQLite needs: the store (for transactions, clock and ids), the
 * queue config, and the owners' dead-letter hooks by job type.
 */
export interface QueueContext extends ProgramContext {
  readonly store: Store;
  readonly deadHooks: Map<string, DeadJobHook>;
}

/** A program's value and the jobs it dead-lettered, whose owners are told in the same transaction. */
export interface WithDead<R> {
  readonly value: R;
  readonly died: readonly JobRow[];
}
