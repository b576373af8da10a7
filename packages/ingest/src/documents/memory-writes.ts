import { isSqliteStore, type PortableStore } from '@memory/store';

/**
 * Lets SQLite's background checkpoint catch up after a large write (a window of chunks, parts of a
 * text); PostgreSQL has nothing to wait for.
 */
export async function checkpointAfterWrites(store: PortableStore): Promise<void> {
  if (isSqliteStore(store)) await store.checkpoint();
}
