import type { EnqueueInput, EnqueueResult, PostgresQueue, Queue, RepairFilter } from '@memory/queue';
import type { Program } from '@memory/store';

/**
 * What documents and connectors need of the job queue, on either dialect: an enqueue that commits
 * (or not) with the caller's own rows, and cancellation.
 */
export interface IngestQueue {
  /** Enqueues inside the write program that yields it: the job commits with the caller's rows. */
  enqueueProgram(input: EnqueueInput): Program<EnqueueResult>;
  /** Cancels pending or leased jobs, in a transaction of its own. */
  cancel(filter: RepairFilter): Promise<void>;
}

/**
 * The queue as documents and connectors use it. On PostgreSQL the queue's own `enqueueProgram`
 * yields its statements into the caller's transaction. The SQLite queue is synchronous: called
 * from a program, which SQLite runs synchronously inside its write, its enqueue joins that same
 * transaction (a savepoint), as it always did (SQLite never runs a program twice).
 */
export function ingestQueue(queue: Queue | PostgresQueue): IngestQueue {
  if ('enqueueProgram' in queue)
    return {
      enqueueProgram: (input) => queue.enqueueProgram(input),
      cancel: async (filter) => {
        await queue.cancel({ ...filter, apply: true });
      },
    };
  return {
    // biome-ignore lint/correctness/useYield: the SQLite queue writes through the running transaction itself.
    *enqueueProgram(input) {
      return queue.enqueue(input);
    },
    cancel: async (filter) => {
      queue.cancel({ ...filter, apply: true });
    },
  };
}
