import type { EmbeddingProvider, MemoryConfig } from '@memory/core';
import { ConflictKeyIndex, createInputSchemas, type MemoryWriter } from '@memory/ingest';
import type { PortableQueue, Queue } from '@memory/queue';
import { PROSPECTIVE_INDEX_JOB } from '@memory/recall';
import type { LiveContent, Program, Store } from '@memory/store';
import { autoLinkJob, queueAutoLink } from './registry-autolink.js';

/**
 * The memory writer every memory write of the engine goes through (remember, modify, forget,
 * recover, document chunks, vectors for Dreaming's memories; Dreaming's seam gets the same hook through
 * `writeDeps(writer)`). Its derived-work hook runs inside the write transaction whenever content
 * becomes live and queues it for prospective hints; the store's memory writer already dropped the
 * hints of content that was replaced or forgotten. A newly created memory is also queued for
 * registry auto-linking. On SQLite the hook is the synchronous queue's (an auto-link that fails to
 * queue is logged and never fails the write: the queue's savepoint rolls it back alone); on
 * PostgreSQL it is a program over the queue's `enqueueProgram`, so the jobs commit (or roll back, or
 * are written again when the store re-runs the write) with the memory.
 *
 * `store` is the engine's store: SQLite's, or on PostgreSQL the stand-in whose `db` runs programs
 * (the memory core reads and writes only through `store.db`).
 */
export function createEngineWriter(deps: {
  readonly store: Store;
  readonly config: MemoryConfig;
  readonly queue: Queue;
  /** The queue's promise API (PostgreSQL: the only one). */
  readonly jobs: PortableQueue;
  /** Already wrapped by the store's transaction guard. */
  readonly embedder: EmbeddingProvider | undefined;
  /** Whether the prospective-hints worker runs (hints enabled and an LLM present). */
  readonly hintsOn: boolean;
  /** Whether registry auto-linking runs (`registry.autoLinkOnCreate` and an LLM present). */
  readonly autoLinkOn: boolean;
}): MemoryWriter {
  const { store, config, queue, jobs, embedder, hintsOn, autoLinkOn } = deps;
  const hintsJob = (memory: LiveContent) => ({
    jobType: PROSPECTIVE_INDEX_JOB,
    payload: { memoryId: memory.id, agentId: memory.agentId },
    dedupKey: memory.id,
    agentId: memory.agentId,
    memoryId: memory.id,
  });
  const base = {
    store,
    config,
    schemas: createInputSchemas(config),
    embedder,
    embedFailures: { last: undefined },
    conflictKeys: new ConflictKeyIndex(),
  };
  if (store.dialect !== 'sqlite') {
    return {
      ...base,
      onContentLiveProgram: function* (memory): Program<void> {
        // Chunks are filed through their document, not one by one.
        if (memory.type === 'document_chunk') return;
        if (autoLinkOn && memory.cause === 'created')
          yield* jobs.enqueueProgram(autoLinkJob(memory.agentId, { kind: 'memory', id: memory.id }));
        if (hintsOn) yield* jobs.enqueueProgram(hintsJob(memory));
      },
    };
  }
  return {
    ...base,
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
      queue.enqueue(hintsJob(memory));
    },
  };
}
