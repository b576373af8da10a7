import { performance } from 'node:perf_hooks';
import { yieldToEventLoop } from '@memory/core';
import {
  attachMemoryVectorProgram,
  clearEmbeddingFailuresProgram,
  memoriesWithoutVectorProgram,
  type OtherKeyScope,
  type PortableStore,
  recordEmbeddingFailureProgram,
  runWriterProgram,
} from '@memory/store';
import { embedTexts, type MemoryWriter, writeDeps } from './writer.js';

/** What one fill-in run did. */
export interface FillVectorsReport {
  /** Memories that got a vector. */
  readonly embedded: number;
  /** Memories whose vector was unusable (counted towards `maxAttempts`). */
  readonly failed: number;
  /** True when no memory was left without a vector (or left alone after repeated failures). */
  readonly finished: boolean;
}

/**
 * Gives vectors of the current embedder to live memories that have none: written during an
 * embedder outage, with an unusable vector, or under an earlier model (the embedding migration:
 * the old vectors go once the new one is stored). Batches of `batchSize` are embedded outside any
 * transaction and stored in one short transaction each; a memory forgotten or
 * changed meanwhile is skipped (its new content is picked up by a later batch). A vector the
 * embedder cannot produce counts as a failure of that content; after `maxAttempts` it is left
 * alone. An embedder that fails the whole call ends the run (an outage: the next run retries).
 */
export async function fillMissingVectors(
  writer: MemoryWriter<PortableStore>,
  options: {
    batchSize: number;
    maxAttempts: number;
    /** Memories under another embedder's key: re-embed them everywhere (default), nowhere, or in these scopes. */
    otherKeys?: OtherKeyScope;
    signal?: AbortSignal | undefined;
    budgetMs?: number | undefined;
  },
): Promise<FillVectorsReport> {
  const { store, embedder } = writer;
  if (!embedder) return { embedded: 0, failed: 0, finished: true };
  const started = performance.now();
  let embedded = 0;
  let failed = 0;
  while (!options.signal?.aborted && performance.now() - started < (options.budgetMs ?? Number.POSITIVE_INFINITY)) {
    const rows = await store.db.read(() =>
      memoriesWithoutVectorProgram(embedder.model, options.batchSize, options.maxAttempts, options.otherKeys ?? 'all'),
    );
    if (rows.length === 0) return { embedded, failed, finished: true };
    const vectors = await embedTexts(
      writer,
      rows.map((r) => r.content),
    );
    if (!vectors) return { embedded, failed, finished: false };
    const deps = writeDeps(writer);
    const counts = await runWriterProgram(store, { agentIds: rows.map((row) => row.agentId) }, function* (target) {
      const now = store.clock.now();
      let ok = 0;
      let bad = 0;
      for (const [i, row] of rows.entries()) {
        const vector = vectors[i];
        if (!vector) {
          yield* recordEmbeddingFailureProgram(
            { memoryId: row.id, model: embedder.model, contentHash: row.contentHash, error: 'unusable vector' },
            now,
          );
          bad++;
          continue;
        }
        const memory = { agentId: row.agentId, id: row.id, contentHash: row.contentHash };
        if (yield* attachMemoryVectorProgram(target, deps, memory, { model: embedder.model, vector }, now)) {
          yield* clearEmbeddingFailuresProgram(row.id);
          ok++;
        }
      }
      return { ok, bad };
    });
    embedded += counts.ok;
    failed += counts.bad;
    await yieldToEventLoop();
  }
  return { embedded, failed, finished: false };
}
