import { type MemoryConfig, MemoryError, resolveConfig } from '@memory/core';
import {
  type ForgetResult,
  type HistoryEntry,
  type Memory,
  type MemoryWriter,
  type RememberResult,
  createInputSchemas,
  forgetMemory,
  getMemory,
  memoryHistory,
  modifyMemory,
  recoverMemory,
  remember,
  rememberMany,
} from '@memory/ingest';
import type { ForgetInput, GetMemoryOptions, ModifyInput, RecoverInput, RememberInput, ScopeInput } from '@memory/ingest';
import { type RecallInput, type RecallResponse, createRecallSchema, recallLexical } from '@memory/recall';
import { type Store, type VectorSupport, openStore } from '@memory/store';
import { type MemoryEngineOptions, checkOptions } from './options.js';

/** The engine a host holds. Every method fails with `ENGINE_CLOSED` after `close()`. */
export interface MemoryEngine {
  /** The resolved, frozen configuration. */
  readonly config: MemoryConfig;
  /** Whether sqlite-vec is loaded (and why not). */
  readonly vector: VectorSupport;
  /** Stores a memory; the same content in the same agent scope returns the existing id (`deduped: true`). */
  remember(input: RememberInput): Promise<RememberResult>;
  /** Stores many memories in bounded transactions; results in input order. Validates all inputs first. */
  rememberMany(inputs: readonly RememberInput[]): Promise<RememberResult[]>;
  /** A memory in the agent's scope, or undefined. Forgotten memories only with `includeDeleted`. */
  getMemory(id: string, options: GetMemoryOptions): Promise<Memory | undefined>;
  /** Changes content, importance, tags or pinned; records history. */
  modify(id: string, input: ModifyInput): Promise<Memory>;
  /** Soft-deletes; pinned memories need `force`. Recoverable within `retention.recoverWindowDays`. */
  forget(id: string, input: ForgetInput): Promise<ForgetResult>;
  /** Restores a forgotten memory. */
  recover(id: string, input: RecoverInput): Promise<Memory>;
  /** The memory's audit trail, oldest first. */
  history(id: string, input: ScopeInput): Promise<HistoryEntry[]>;
  /** Ranked recall within one agent's scope. */
  recall(input: RecallInput): Promise<RecallResponse>;
  /** Closes the engine (and the database if the engine opened it). Idempotent. */
  close(): Promise<void>;
}

/**
 * Creates an engine on SQLite. Runs migrations on open; does no other work until called.
 *
 * @example
 * ```ts
 * const engine = await createMemoryEngine({ database: { path: 'memory.db' } });
 * await engine.remember({ agentId: 'bot', content: 'Alice prefers tea', type: 'preference' });
 * const { results } = await engine.recall({ agentId: 'bot', query: 'what does Alice drink? tea' });
 * await engine.close();
 * ```
 */
export async function createMemoryEngine(options: MemoryEngineOptions): Promise<MemoryEngine> {
  checkOptions(options);
  const config = resolveConfig(options.config ?? {});
  const database = options.database;
  const store: Store = await openStore({
    ...('path' in database ? { path: database.path } : { database: database.database }),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.ids ? { ids: options.ids } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    config: config.store,
  });
  const writer: MemoryWriter = {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder: options.embedder ? store.guard.embedder(options.embedder) : undefined,
  };
  const recallSchema = createRecallSchema(config);
  let closed = false;

  // Every public call goes through here: a closed engine refuses, and any synchronous throw becomes
  // a rejected promise so callers see one error path.
  const call = async <T>(fn: () => T | Promise<T>): Promise<T> => {
    if (closed) throw new MemoryError('ENGINE_CLOSED', 'the memory engine is closed');
    return fn();
  };

  return Object.freeze({
    config,
    vector: store.vector,
    remember: (input) => call(() => remember(writer, input)),
    rememberMany: (inputs) => call(() => rememberMany(writer, inputs)),
    getMemory: (id, opts) => call(() => getMemory(writer, id, opts)),
    modify: (id, input) => call(() => modifyMemory(writer, id, input)),
    forget: (id, input) => call(() => forgetMemory(writer, id, input)),
    recover: (id, input) => call(() => recoverMemory(writer, id, input)),
    history: (id, input) => call(() => memoryHistory(writer, id, input)),
    recall: (input) => call(() => recallLexical(store, config, recallSchema, input)),
    async close() {
      if (closed) return;
      closed = true;
      store.close();
    },
  } satisfies MemoryEngine);
}
