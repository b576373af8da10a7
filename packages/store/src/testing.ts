import {
  type Clock,
  createManualClock,
  createSequentialIds,
  defaultConfig,
  type IdGenerator,
  type Logger,
} from '@memory/core';
import { openStore, type Store } from './open-store.js';

export interface TestStoreOptions {
  /** @default a manual clock at 2026-01-01T00:00:00Z */
  readonly clock?: Clock;
  /** @default sequential ids `m-000001`, ... */
  readonly ids?: IdGenerator;
  readonly logger?: Logger;
  /** Load sqlite-vec (`auto`) or run without it (`off`). @default 'auto' */
  readonly vectorExtension?: 'auto' | 'off';
  /** A file path instead of `:memory:`. */
  readonly path?: string;
}

/**
 * A migrated in-memory store for tests: real SQLite, FTS5 and (when installed) sqlite-vec, with a
 * manual clock and sequential ids unless others are given.
 *
 * @example
 * ```ts
 * const store = await createTestStore();
 * expect(store.vector.available).toBe(true);
 * ```
 */
export function createTestStore(options: TestStoreOptions = {}): Promise<Store> {
  return openStore({
    path: options.path ?? ':memory:',
    clock: options.clock ?? createManualClock(Date.UTC(2026, 0, 1)),
    ids: options.ids ?? createSequentialIds('m'),
    ...(options.logger ? { logger: options.logger } : {}),
    config: { ...defaultConfig.store, vectorExtension: options.vectorExtension ?? 'auto' },
  });
}

export { insertMemory } from './repositories/memories.js';
export { insertMention } from './repositories/mentions.js';
// How the scoped text index turns text into terms, for tests that recompute the index from rows.
export { textTerms } from './text-terms.js';
// Low-level writers for tests that set up rows the public paths would not (a mention without
// inline linking, a memory row with chosen columns) and the vector sketch for checking the mirror.
export { signSketch } from './vector-index/legacy-mirror.js';
