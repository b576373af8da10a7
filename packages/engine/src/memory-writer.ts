import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import { ConflictKeyIndex, createInputSchemas, type MemoryWriter } from '@memory/ingest';
import type { Queue } from '@memory/queue';
import { PROSPECTIVE_INDEX_JOB } from '@memory/recall';
import type { Store } from '@memory/store';
import { queueAutoLink } from './registry-autolink.js';

/**
 * The memory writer every memory write of the engine goes through (remember, modify, forget,
 * recover, document chunks, vectors for Dreaming's memories; Dreaming's seam gets the same hook through
 * `writeDeps(writer)`). Its `onContentLive` hook runs inside the write transaction whenever content
 * becomes live and queues it for prospective hints; the store's memory writer already dropped the
 * hints of content that was replaced or forgotten. A newly created memory is also queued for
 * registry auto-linking (best effort: a failure to queue is logged and never fails the write).
 */
export function createEngineWriter(deps: {
  readonly store: Store;
  readonly config: MemoryConfig;
  readonly queue: Queue;
  /** Already wrapped by the store's transaction guard. */
  readonly embedder: EmbeddingProvider | undefined;
  /** Whether the prospective-hints worker runs (hints enabled and an LLM present). */
  readonly hintsOn: boolean;
  /** Whether registry auto-linking runs (`registry.autoLinkOnCreate` and an LLM present). */
  readonly autoLinkOn: boolean;
}): MemoryWriter {
  const { store, config, queue, embedder, hintsOn, autoLinkOn } = deps;
  const writer: MemoryWriter = {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder,
    embedFailures: { last: undefined },
    conflictKeys: new ConflictKeyIndex(),
    onContentLive: (_sql, memory) => {
      // Chunks are filed through their document, not one by one.
      if (memory.type === 'document_chunk') return;
      if (autoLinkOn && memory.cause === 'created') {
        try {
          queueAutoLink(queue, memory.agentId, { kind: 'memory', id: memory.id });
        } catch (error) {
          store.logger.warn('could not queue registry auto-link for a memory', {
            memoryId: memory.id,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      }
      if (!hintsOn) return;
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
