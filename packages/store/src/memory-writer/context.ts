import type { IdGenerator } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
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
  readonly onContentLive?:
    | ((sql: SqlExecutor, memory: { id: string; agentId: string; type: MemoryType; cause: ContentCause }) => void)
    | undefined;
}

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
