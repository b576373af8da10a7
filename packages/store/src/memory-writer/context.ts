import type { IdGenerator } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import type { ActorType, MemoryType } from '../schema/memories.js';

/** Why a memory's content became live: derived work (prospective hints) is queued for each. */
export type ContentCause = 'created' | 'replaced' | 'recovered';

/**
 * What the memory writer needs from its host, built once per engine and shared by every path that
 * writes memories (remember, modify, forget, recover, document chunks, Dreaming), so their side
 * effects cannot disagree.
 */
export interface MemoryWriteDeps {
  readonly ids: IdGenerator;
  /** Whether sqlite-vec is loaded (the vector mirror exists only then). */
  readonly vectorAvailable: boolean;
  /** Link new content to the agent's existing entities by name (mentions only). */
  readonly inlineEntityLinking: boolean;
  /**
   * Called inside the write transaction whenever content becomes live: the engine queues derived
   * work (prospective hints) here. Old hints were already removed by the writer.
   */
  readonly onContentLive?: ((sql: SqlExecutor, memory: LiveContent) => void) | undefined;
  /**
   * `onContentLive` as a program: runs inside the write transaction on either dialect. On
   * PostgreSQL only this form can run (no executor callback exists there); on SQLite it runs
   * instead of `onContentLive` when both are given.
   */
  readonly onContentLiveProgram?: ((memory: LiveContent) => Program<void>) | undefined;
}

/** A memory whose content just became live, as the writer's hooks see it. */
export interface LiveContent {
  readonly id: string;
  readonly agentId: string;
  readonly type: MemoryType;
  readonly cause: ContentCause;
}

/**
 * Where a writer program runs. SQLite gives its executor: the parts that exist only there (the vec0
 * vector index, executor callbacks) run on it between the program's statements, in the same
 * synchronous transaction. PostgreSQL has neither: the program writes the text index itself and
 * stores vectors only in `embeddings`.
 */
export type WriterTarget = { readonly dialect: 'sqlite'; readonly sql: SqlExecutor } | { readonly dialect: 'postgres' };

/** The target of a writer program running on PostgreSQL. */
export const POSTGRES_WRITER: WriterTarget = Object.freeze({ dialect: 'postgres' });

/** Who made a change and in which request, for the audit trail. */
export interface MemoryAudit {
  readonly actor?: { readonly id: string; readonly type: ActorType } | undefined;
  readonly sessionId?: string | null | undefined;
  readonly requestId?: string | null | undefined;
  readonly reason?: string | null | undefined;
  /** Extra JSON-safe facts kept with the history row (e.g. Dreaming's evidence). */
  readonly metadata?: Readonly<Record<string, unknown>> | undefined;
}

/** A canonical vector for new content, computed before the transaction. */
export interface MemoryVector {
  readonly model: string;
  readonly vector: Float32Array;
}

/**
 * The lock keys of a write to these agents' memories on PostgreSQL (`PostgresWriteOptions.lockKeys`):
 * writers of one scope then take turns instead of failing serialization on the scope's shared rows
 * (its text statistics and counts). The rows stay consistent without them (SERIALIZABLE and the
 * store's retry see to that), but conflict detection's key index does not: it catches up from
 * `memory_history` by seq, which is only safe when a scope's history rows commit in seq order, that
 * is, when every writer of the scope's memories holds these keys (`runWriterProgram` requires the
 * scopes for that reason).
 */
export function memoryScopeLockKeys(agentIds: Iterable<string>): string[] {
  return [...new Set(agentIds)].map((agentId) => `memory-scope:${agentId}`);
}
