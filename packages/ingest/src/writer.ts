import { type EmbeddingProvider, type MemoryConfig, toVector } from '@memory/core';
import {
  isSqliteStore,
  type MemoryAudit,
  type MemoryVector,
  type MemoryWriteDeps,
  type PortableStore,
  type Store,
} from '@memory/store';
import type { ConflictKeyIndex } from './conflict-keys.js';
import type { InputSchemas } from './inputs.js';

/**
 * What the memory writer needs; built once by the engine. The memory core (remember, modify, forget,
 * recover, reads, vector fill-in) runs on any `PortableStore` (SQLite or PostgreSQL); `S` defaults
 * to SQLite's `Store` for the paths that still need its executor API (documents).
 */
export interface MemoryWriter<S extends PortableStore = Store> {
  readonly store: S;
  readonly config: MemoryConfig;
  readonly schemas: InputSchemas;
  /** Already wrapped by the store's transaction guard. */
  readonly embedder?: EmbeddingProvider | undefined;
  /**
   * Called inside the write transaction whenever a memory's content becomes live (created, replaced
   * or recovered), on every write path: the engine queues derived work such as prospective hints.
   * Old hints were already removed by the store's memory writer.
   */
  readonly onContentLive?: MemoryWriteDeps['onContentLive'];
  /**
   * `onContentLive` as a program, run inside the write transaction on either dialect (on PostgreSQL
   * only this form can run; on SQLite it runs instead of `onContentLive` when both are given). It
   * may run more than once for one write on PostgreSQL (a serialization failure re-runs the whole
   * write), so its statements are the only effects that count.
   */
  readonly onContentLiveProgram?: MemoryWriteDeps['onContentLiveProgram'];
  /**
   * The last embedding failure logged at warn. A broken embedder (a model file a bundle left
   * behind) fails on every write: the same failure again is logged at debug, so it is reported
   * once, and again after the embedder worked in between. Without it every failure is a warning.
   */
  readonly embedFailures?: { last: string | undefined };
  /**
   * Conflict detection's index of stored memories by the rule's key, kept between calls (see
   * conflict-keys.ts). Without it each checked write builds one for its scope.
   */
  readonly conflictKeys?: ConflictKeyIndex;
}

/**
 * Undefined, or a promise to await before the next write transaction while the store's WAL is long
 * (SQLite: see `Store.walBacklog`); never rejects. Writers that can wait call it, so the WAL restarts
 * at their next commit instead of growing until the writer checkpoints inside a COMMIT.
 */
export function walBacklog(store: PortableStore): Promise<void> | undefined {
  return isSqliteStore(store) ? store.walBacklog() : undefined;
}

/** The audit fields every mutation records. */
export interface AuditContext {
  readonly actor?: { readonly id: string; readonly type: 'operator' | 'agent' | 'engine' } | undefined;
  readonly sessionId?: string | undefined;
  readonly requestId?: string | undefined;
}

/** The store writer's dependencies for this engine's writes. */
export function writeDeps(writer: MemoryWriter<PortableStore>): MemoryWriteDeps {
  const { store, conflictKeys } = writer;
  // Replaced or recovered content has a new key; the index reads it again before its next use.
  // Repeating the touch (a re-run write on PostgreSQL, or one that rolled back) costs one read.
  const touch = (memory: { agentId: string; id: string }) => conflictKeys?.touch(memory.agentId, memory.id);
  const hook = writer.onContentLive;
  const program = writer.onContentLiveProgram;
  return {
    ids: store.ids,
    vectorAvailable: isSqliteStore(store) && store.vector.available,
    inlineEntityLinking: writer.config.remember.inlineEntityLinking,
    onContentLive: conflictKeys
      ? (sql, memory) => {
          touch(memory);
          hook?.(sql, memory);
        }
      : hook,
    // On PostgreSQL an executor hook without a program form is refused by the store writer (loudly,
    // never dropped): only with no hook at all does the index's touch run alone.
    onContentLiveProgram:
      program || (conflictKeys && store.dialect !== 'sqlite' && !hook)
        ? function* (memory) {
            touch(memory);
            if (program) yield* program(memory);
          }
        : undefined,
  };
}

/** The audit record of a request: who, in which session and request, and why. */
export function auditOf(input: AuditContext & { reason?: string | undefined }): MemoryAudit {
  return {
    actor: input.actor,
    sessionId: input.sessionId,
    requestId: input.requestId,
    reason: input.reason,
  };
}

/** The vector of one text for the store writer, or undefined when there is no (working) embedder. */
export async function embedOne(writer: MemoryWriter<PortableStore>, text: string): Promise<MemoryVector | undefined> {
  const vector = (await embedTexts(writer, [text]))?.[0];
  return vector && writer.embedder ? { model: writer.embedder.model, vector } : undefined;
}

/**
 * Embeds texts outside any transaction; one result per text, undefined where the embedder gave
 * nothing usable. The embedder's output is untrusted input: a failing call, a wrong number of
 * vectors, or a vector of the wrong length or with non-finite values never loses a memory — the
 * caller stores it without a vector, the problem is logged, and the engine's fill-in job embeds it
 * later. Returns undefined when there is no embedder or the whole call failed.
 */
export async function embedTexts(
  writer: MemoryWriter<PortableStore>,
  texts: readonly string[],
): Promise<Array<Float32Array | undefined> | undefined> {
  const embedder = writer.embedder;
  if (!embedder || texts.length === 0) return undefined;
  let output: unknown;
  try {
    output = await embedder.embed(texts, { purpose: 'index' });
  } catch (error) {
    const text = error instanceof Error ? error.message : String(error);
    const repeated = writer.embedFailures?.last === text;
    if (writer.embedFailures) writer.embedFailures.last = text;
    const fields = { model: embedder.model, error: text };
    const message = 'embedding failed; memories stored without vectors (filled in later)';
    // Called as methods: a host's logger may be a class instance that needs its `this`.
    if (repeated) writer.store.logger.debug(message, fields);
    else writer.store.logger.warn(message, fields);
    return undefined;
  }
  if (writer.embedFailures) writer.embedFailures.last = undefined;
  if (!Array.isArray(output) || output.length !== texts.length) {
    writer.store.logger.warn('embedder returned the wrong number of vectors; memories stored without them', {
      model: embedder.model,
      expected: texts.length,
      received: Array.isArray(output) ? output.length : typeof output,
    });
    return undefined;
  }
  const vectors = output.map((value) => toVector(value, embedder.dimensions));
  const bad = vectors.flatMap((v, index) => (typeof v === 'string' ? [{ index, problem: v }] : []));
  if (bad.length > 0) {
    writer.store.logger.warn('embedder returned unusable vectors; those memories stored without them', {
      model: embedder.model,
      unusable: bad.length,
      of: texts.length,
      first: bad[0],
    });
  }
  return vectors.map((v) => (typeof v === 'string' ? undefined : v));
}
