import { performance } from 'node:perf_hooks';
import { type MemoryConfig, type TimeSlicer, utf8Length, yieldToEventLoop } from '@memory/core';
import {
  createMemoriesProgram,
  findDocumentStatusProgram,
  linkChunkProgram,
  type MemoryWriteDeps,
  type PortableStore,
  runWriterProgram,
} from '@memory/store';
import { newMemory } from '../remember.js';
import { embedTexts, type MemoryWriter } from '../writer.js';
import { checkpointAfterWrites } from './memory-writes.js';
import { type ChunkOrigin, type PreparedChunk, prepareChunks } from './prepare-chunks.js';

/** What indexing a document's chunks needs from the ingest job. */
export interface ChunkIndexing {
  readonly writer: MemoryWriter;
  readonly store: PortableStore;
  /** The memory writer's dependencies (one set per engine). */
  readonly memoryWrites: MemoryWriteDeps;
  readonly settings: MemoryConfig['documents'];
  readonly origin: ChunkOrigin;
  readonly signal: AbortSignal;
  /** The ingest's time budget, shared by all its steps so none starts a fresh slice without yielding. */
  readonly slicer: TimeSlicer;
  /**
   * Live memories already linked to the document, by content hash: written by an interrupted run of
   * this conversion (skipped) or by an earlier conversion (re-linked to this one, never re-embedded).
   */
  readonly known: ReadonlyMap<string, string>;
  /** The conversion the chunks belong to. */
  readonly conversion: number;
  /** Each chunk's location in the source, as stored JSON, by chunk index. */
  readonly locations: readonly (string | null)[];
  /** Moves the document to a status; throws once the document is deleted. */
  advance(status: 'embedding' | 'indexing'): Promise<void>;
  /** Thrown when a write finds the document deleted. */
  gone(): Error;
}

/** Consecutive windows `[first, end)` of at most `bytes` UTF-8 bytes of chunk text (at least one chunk each). */
export function* chunkWindows(chunks: readonly string[], bytes: number): Generator<{ first: number; end: number }> {
  for (let first = 0; first < chunks.length; ) {
    let end = first + 1;
    let size = utf8Length(chunks[first] ?? '');
    for (; end < chunks.length; end++) {
      const next = utf8Length(chunks[end] ?? '');
      if (size + next > bytes) break;
      size += next;
    }
    yield { first, end };
    first = end;
  }
}

/**
 * Prepares, embeds and indexes a document's chunks one window at a time (`documents.windowBytes`
 * of chunk text): a window's chunks are validated, normalized and hashed, embedded in batches of
 * `embedBatchSize`, and written in transactions of up to `indexBatchSize` (fewer when they run
 * long: see {@link writePace}), before the next window is
 * prepared. A 50 MB document then holds one window of normalized copies and vectors, not 25,000 of
 * each: preparing everything first kept ~100 MB more alive and the garbage collector paused the
 * loop for 50–100 ms at a time. The document is `embedding` while a window is embedded and
 * `indexing` while it is written. Returns the number of chunks written as new memories.
 */
export async function indexChunks(job: ChunkIndexing, chunks: readonly string[]): Promise<number> {
  const { settings, signal } = job;
  const pace = writePace(settings.indexBatchSize);
  let indexed = 0;
  for (const { first, end } of chunkWindows(chunks, settings.windowBytes)) {
    if (first > 0) await job.advance('embedding');
    const prepared = await prepareChunks(job.writer, job.origin, chunks.slice(first, end), first, job.slicer);
    // Every chunk is written (a known one as a link only): links carry this conversion and place.
    const todo = prepared;
    const fresh = todo.filter(({ item }) => !job.known.has(item.hash));
    const vectors = await embedWindow(job, fresh);
    // The last preparing (or embedding) slice, the status write and the first index transaction
    // would otherwise share one turn of the loop.
    await job.slicer.yield();
    await job.advance('indexing');
    for (let start = 0; start < todo.length; ) {
      if (signal.aborted) throw signal.reason;
      const size = pace.size();
      const began = performance.now();
      await writeBatch(job, todo.slice(start, start + size), vectors);
      pace.record(Math.min(size, todo.length - start), performance.now() - began);
      start += size;
      await yieldToEventLoop();
    }
    indexed += fresh.length;
    // A window writes a few MB to the WAL (rows, FTS, vectors, history): letting the background
    // checkpoint catch up before the next keeps the writer from ever checkpointing in a commit.
    await checkpointAfterWrites(job.store);
  }
  return indexed;
}

/** Index transactions aim at this long: under a slice, leaving room for SQLite's occasional costlier commit. */
const WRITE_TARGET_MS = 8;

/**
 * Chunks per index transaction, paced by time: each size is what the last transaction's time per
 * chunk says fits {@link WRITE_TARGET_MS}, at most half again the previous size and never above
 * `indexBatchSize`. Fifty chunks took 6 ms of CPU as a rule but 20–30 ms now and then.
 */
/** Fewer chunks per transaction cost more in per-transaction work than they save in stall. */
const MIN_WRITE_CHUNKS = 8;

function writePace(max: number): { size(): number; record(chunks: number, ms: number): void } {
  let size = max;
  return {
    size: () => size,
    record(chunks, ms) {
      const fits = Math.floor((WRITE_TARGET_MS * chunks) / Math.max(ms, 0.001));
      size = Math.max(Math.min(max, MIN_WRITE_CHUNKS), Math.min(max, Math.ceil(size * 1.5), fits));
    },
  };
}

/** Embeds a window's chunks outside any transaction, in batches, checking for an abort between them. */
async function embedWindow(job: ChunkIndexing, todo: readonly PreparedChunk[]): Promise<Map<number, Float32Array>> {
  const vectors = new Map<number, Float32Array>();
  if (!job.writer.embedder) return vectors;
  // An embedder that answers at once (in-process) would otherwise chain every batch on
  // microtasks without the event loop ever running in between.
  const { slicer } = job;
  for (let start = 0; start < todo.length; start += job.settings.embedBatchSize) {
    if (slicer.due()) await slicer.yield();
    if (job.signal.aborted) throw job.signal.reason;
    const batch = todo.slice(start, start + job.settings.embedBatchSize);
    const result = await embedTexts(
      job.writer,
      batch.map(({ item }) => item.content),
    );
    for (const [i, { index }] of batch.entries()) {
      const vector = result?.[i];
      if (vector) vectors.set(index, vector);
    }
  }
  return vectors;
}

/** Writes chunk memories and their links in one transaction; throws `gone()` if the document was deleted. */
async function writeBatch(
  job: ChunkIndexing,
  batch: readonly PreparedChunk[],
  vectors: ReadonlyMap<number, Float32Array>,
): Promise<void> {
  const { writer, store, origin } = job;
  const embedder = writer.embedder;
  const fresh = batch.filter(({ item }) => !job.known.has(item.hash));
  const memories = fresh.map(({ item, index }) => {
    const vector = vectors.get(index);
    return newMemory(writer, item, vector && embedder ? { model: embedder.model, vector } : undefined);
  });
  const now = store.clock.now();
  // The store wraps whatever a write throws, so deletion is returned, then thrown.
  const gone = await runWriterProgram(store, { agentIds: [origin.agentId] }, function* (target) {
    if ((yield* findDocumentStatusProgram(origin.agentId, origin.documentId)) !== 'indexing') return true;
    const created = yield* createMemoriesProgram(target, job.memoryWrites, memories, now);
    const ids = new Map(fresh.map(({ index }, i) => [index, created[i]?.id]));
    for (const { item, index } of batch) {
      const memoryId = job.known.get(item.hash) ?? ids.get(index);
      if (memoryId)
        yield* linkChunkProgram({
          documentId: origin.documentId,
          memoryId,
          chunkIndex: index,
          conversion: job.conversion,
          location: job.locations[index] ?? null,
        });
    }
    return false;
  });
  if (gone) throw job.gone();
}
