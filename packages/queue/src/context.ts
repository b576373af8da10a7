import type { MemoryConfig } from '@memory/core';
import type { Store } from '@memory/store';

/** What every queue operation needs: the store (for transactions, clock and ids) and the queue config. */
export interface QueueContext {
  readonly store: Store;
  readonly config: MemoryConfig['queue'];
}
