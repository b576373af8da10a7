import {
  createManualClock,
  createManualScheduler,
  createSequentialIds,
  defaultConfig,
  type MemoryConfig,
} from '@memory/core';
import { openStore } from '@memory/store';
import { createQueue } from '../src/index.js';

export const T0 = Date.UTC(2026, 0, 1);

export async function setup(config: Partial<MemoryConfig['queue']> = {}, path = ':memory:') {
  const clock = createManualClock(T0);
  const scheduler = createManualScheduler(clock);
  const store = await openStore({ path, clock, ids: createSequentialIds('j') });
  const queue = createQueue({ store, config: { ...defaultConfig.queue, ...config } });
  const row = (id: string) =>
    store.database
      .prepare(
        'SELECT status, attempts, lease_token, lease_expires_at, leased_at, leased_by, run_at, error FROM memory_jobs WHERE id = ?',
      )
      .get(id) as {
      status: string;
      attempts: number;
      lease_token: string | null;
      lease_expires_at: number | null;
      leased_at: number | null;
      leased_by: string | null;
      run_at: number;
      error: string | null;
    };
  return { clock, scheduler, store, queue, row };
}
