import { yieldToEventLoop } from '@memory/core';
import {
  beginNextConversionProgram,
  type DocumentRow,
  findDocumentStatusProgram,
  forgetMemoryProgram,
  type MemoryWriteDeps,
  type PortableStore,
  retiredChunkMemoryIdsProgram,
  runWriterProgram,
} from '@memory/store';
import { type DocumentExtraction, metadataOf } from './register-source.js';

/** Chunk memories forgotten per transaction when a conversion replaces another (~1 ms each with history). */
const RETIRE_BATCH = 25;

/** Same bytes, same extractor: the text (and so the chunks) would come out the same. */
const sameConversion = (a: DocumentExtraction, b: DocumentExtraction): boolean =>
  a.byteHash === b.byteHash && a.extractor === b.extractor && a.extractorVersion === b.extractorVersion;

/**
 * What an ingest does with the text it just extracted, given the document's lineage: `unchanged`
 * when the last complete conversion came from the same bytes by the same extractor (a URL fetched
 * again, a file retried: nothing to write); otherwise the conversion the chunks belong to: the
 * current one (a first ingest, or an interrupted one resumed), or the next one when the source
 * changed, with the current one's lineage moved to the document's history.
 */
export async function chooseConversion(
  store: PortableStore,
  doc: DocumentRow,
  extraction: DocumentExtraction,
): Promise<'unchanged' | number> {
  const previous = metadataOf(doc).extraction;
  if (!previous) return doc.conversion;
  if (sameConversion(previous, extraction)) return doc.completed_at !== null ? 'unchanged' : doc.conversion;
  const lineage = {
    contentType: previous.mediaType,
    contentHash: previous.byteHash,
    extractionJson: JSON.stringify(previous),
  };
  const now = store.clock.now();
  return store.db.write(() => beginNextConversionProgram(doc, lineage, now));
}

/**
 * Forgets (soft delete, with history, through the memory writer) the chunk memories that earlier
 * conversions of the document produced and the current one did not keep, unless another live
 * document shares them. Short transactions with the event loop let run between them; stops early
 * (returning what it did) if the document is deleted meanwhile. Returns how many it forgot.
 */
export async function retireEarlierChunks(
  store: PortableStore,
  memoryWrites: MemoryWriteDeps,
  doc: { readonly id: string; readonly agentId: string },
  conversion: number,
  signal: AbortSignal,
): Promise<number> {
  let forgotten = 0;
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const now = store.clock.now();
    const done = await runWriterProgram(store, { agentIds: [doc.agentId] }, function* (target) {
      if ((yield* findDocumentStatusProgram(doc.agentId, doc.id)) === 'deleted') return 0;
      const ids = yield* retiredChunkMemoryIdsProgram(doc.id, conversion, RETIRE_BATCH);
      for (const memoryId of ids)
        yield* forgetMemoryProgram(
          target,
          memoryWrites,
          {
            agentId: doc.agentId,
            id: memoryId,
            force: true,
            audit: {
              actor: { id: 'document-ingest', type: 'engine' },
              reason: `document ${doc.id}: conversion ${conversion} replaced an earlier one`,
              metadata: { documentId: doc.id, conversion },
            },
          },
          now,
        );
      return ids.length;
    });
    forgotten += done;
    if (done < RETIRE_BATCH) return forgotten;
    await yieldToEventLoop();
  }
}
