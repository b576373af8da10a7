import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps, Store } from '@memory/store';
import type { InputSchemas } from './inputs.js';

/** What the memory writer needs; built once by the engine. */
export interface MemoryWriter {
  readonly store: Store;
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
}

/** The audit fields every mutation records. */
export interface AuditContext {
  readonly actor?: { readonly id: string; readonly type: 'operator' | 'agent' | 'engine' } | undefined;
  readonly sessionId?: string | undefined;
  readonly requestId?: string | undefined;
}

/** The store writer's dependencies for this engine's writes. */
export function writeDeps(writer: MemoryWriter): MemoryWriteDeps {
  return {
    ids: writer.store.ids,
    vectorAvailable: writer.store.vector.available,
    inlineEntityLinking: writer.config.remember.inlineEntityLinking,
    onContentLive: writer.onContentLive,
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
export async function embedOne(writer: MemoryWriter, text: string): Promise<MemoryVector | undefined> {
  const vector = (await embedTexts(writer, [text]))?.[0];
  return vector && writer.embedder ? { model: writer.embedder.model, vector } : undefined;
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
