import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import type { SqlExecutor, Store } from '@memory/store';
import type { InputSchemas } from './inputs.js';

/** What the memory writer needs; built once by the engine. */
export interface MemoryWriter {
  readonly store: Store;
  readonly config: MemoryConfig;
  readonly schemas: InputSchemas;
  /** Already wrapped by the store's transaction guard. */
  readonly embedder?: EmbeddingProvider | undefined;
  /**
   * Called inside the write transaction when a memory's content is new (created, or changed by
   * modify): the engine uses it to queue derived work such as prospective hints.
   */
  readonly onContentWritten?:
    | ((sql: SqlExecutor, memory: { id: string; agentId: string; type: string; changed: boolean }) => void)
    | undefined;
}

/** The audit fields every mutation records. */
export interface AuditContext {
  readonly actor?: { readonly id: string; readonly type: 'operator' | 'agent' | 'engine' } | undefined;
  readonly sessionId?: string | undefined;
  readonly requestId?: string | undefined;
}

export function auditColumns(agentId: string, audit: AuditContext) {
  return {
    changed_by: audit.actor?.id ?? agentId,
    actor_type: audit.actor?.type ?? 'agent',
    session_id: audit.sessionId ?? null,
    request_id: audit.requestId ?? null,
  } as const;
}

/**
 * Embeds texts outside any transaction. A failing or misbehaving embedder never loses a memory:
 * the caller stores the memory without a vector and the failure is logged.
 */
export async function embedTexts(writer: MemoryWriter, texts: readonly string[]): Promise<Float32Array[] | undefined> {
  const embedder = writer.embedder;
  if (!embedder || texts.length === 0) return undefined;
  try {
    const vectors = await embedder.embed(texts, { purpose: 'index' });
    const bad =
      vectors.length !== texts.length ||
      vectors.some((v) => v.length !== embedder.dimensions || !v.every(Number.isFinite));
    if (bad) {
      writer.store.logger.warn('embedder returned unusable vectors; memories stored without them', {
        model: embedder.model,
        expected: texts.length,
        received: vectors.length,
      });
      return undefined;
    }
    return vectors;
  } catch (error) {
    writer.store.logger.warn('embedding failed; memories stored without vectors', {
      model: embedder.model,
      error: error instanceof Error ? error.message : String(error),
    });
    return undefined;
  }
}
