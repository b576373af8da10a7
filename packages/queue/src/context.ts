import type { MemoryConfig } from '@memory/core';
import type { SqlExecutor, Store } from '@memory/store';
import type { Job } from './job.js';

/**
 * Told, inside the transaction that dead-letters a job of its type, that the job died (its `error`
 * says why), so the job's owner (an import, a document) can record it in the same commit.
 */
export type DeadJobHook = (sql: SqlExecutor, job: Job) => void;

/**
 * What every queue operation needs: the store (for transactions, clock and ids), the queue config,
 * and the owners' dead-letter hooks by job type.
 */
export interface QueueContext {
  readonly store: Store;
  readonly config: MemoryConfig['queue'];
  readonly deadHooks: Map<string, DeadJobHook>;
}
