import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import { createInputSchemas, type MemoryWriter } from '@memory/ingest';
import type { Queue } from '@memory/queue';
import { PROSPECTIVE_INDEX_JOB } from '@memory/recall';
import { deleteHints, type Store } from '@memory/store';

/**
 * The memory writer every memory write of the engine goes through (remember, modify, forget,
 * recover, document chunks, vectors for Dreaming's memories). Its `onContentWritten` hook runs inside
 * the write transaction: a changed memory loses its hints, and new content is queued for hints.
 */
export function createEngineWriter(deps: {
  readonly store: Store;
  readonly config: MemoryConfig;
  readonly queue: Queue;
  /** Already wrapped by the store's transaction guard. */
  readonly embedder: EmbeddingProvider | undefined;
  /** Whether the prospective-hints worker runs (hints enabled and an LLM present). */
  readonly hintsOn: boolean;
}): MemoryWriter {
  const { store, config, queue, embedder, hintsOn } = deps;
  const writer: MemoryWriter = {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder,
    onContentWritten: (sql, memory) => {
      if (memory.changed) deleteHints(sql, memory.agentId, memory.id);
      if (!hintsOn || memory.type === 'document_chunk') return;
      queue.enqueue({
        jobType: PROSPECTIVE_INDEX_JOB,
        payload: { memoryId: memory.id, agentId: memory.agentId },
        dedupKey: memory.id,
        agentId: memory.agentId,
        memoryId: memory.id,
      });
    },
  };
  return writer;
}
