import { createTimeSlicer, hasMeaningfulText, parseInput, type TimeSlicer } from '@memory/core';
import { type Prepared, prepare } from '../remember.js';
import type { MemoryWriter } from '../writer.js';

/** What a document's chunks are stored as (the chunk memories' fields besides their content). */
export interface ChunkOrigin {
  readonly agentId: string;
  readonly documentId: string;
  readonly project: string | null;
  readonly importance: number;
}

/** One chunk ready to store, with its position in the document. */
export interface PreparedChunk {
  readonly item: Prepared;
  readonly index: number;
}

/**
 * Validates, normalizes and hashes a document's chunks as `document_chunk` memories, yielding to the
 * event loop whenever a slice of this work has run for ~10 ms (a 50 MB document has ~25,000
 * chunks). Chunks without a letter, digit or symbol (a run of `----`, a page of `....`) hold nothing
 * to recall: they are skipped, not a failure of the document. `index` keeps each chunk's position
 * (`firstIndex` is the first chunk's, when `chunks` is a window of the document's).
 */
export async function prepareChunks(
  writer: MemoryWriter,
  origin: ChunkOrigin,
  chunks: readonly string[],
  firstIndex = 0,
  slicer: TimeSlicer = createTimeSlicer(),
): Promise<PreparedChunk[]> {
  const prepared: PreparedChunk[] = [];
  for (const [index, content] of chunks.entries()) {
    if (slicer.due()) await slicer.yield();
    if (!hasMeaningfulText(content)) continue;
    const input = {
      agentId: origin.agentId,
      content,
      type: 'document_chunk',
      importance: origin.importance,
      source: { type: 'document', id: origin.documentId },
      ...(origin.project ? { project: origin.project } : {}),
      actor: { id: 'document-ingest', type: 'engine' },
    };
    prepared.push({
      item: prepare(parseInput(writer.schemas.remember, input, 'document chunk'), 'document chunk'),
      index: firstIndex + index,
    });
  }
  return prepared;
}
