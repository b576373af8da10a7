import { createTimeSlicer, type TimeSlicer } from '@memory/core';
import {
  countDocumentPartsProgram,
  type DocumentRow,
  deleteDocumentPartsProgram,
  findDocumentPartProgram,
  insertDocumentPartProgram,
  type PortableStore,
} from '@memory/store';
import type { TextSource } from './chunk-text.js';
import { checkpointAfterWrites } from './memory-writes.js';

/**
 * Characters per stored part of a large document's text. Writing or reading 256 Ki characters is a
 * millisecond or two; a 50 MB text in one statement held the event loop ~0.4 s, and 1 Mi characters
 * with its commit 10–30 ms.
 */
export const DOCUMENT_PART_CHARS = 256 * 1024;

/**
 * The longest text kept in the document row itself. SQLite rewrites a whole row on every update,
 * and the ingest moves a document through five or more statuses (one per window while indexing):
 * a 1 MB text in the row was rewritten and committed each time, up to 30 ms per status change and
 * 40–50 ms of one synchronous slice when two fell in the same turn. A short text stays in the row.
 */
export const DOCUMENT_ROW_MAX_CHARS = 64 * 1024;

/** The text in parts of at most `size` characters, never splitting a surrogate pair. */
export function* textParts(text: string, size = DOCUMENT_PART_CHARS): Generator<string> {
  for (let start = 0; start < text.length; ) {
    let end = Math.min(text.length, start + size);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(start, end);
    start = end;
  }
}

/** True when a text is stored in parts rather than in the document row. */
export const storedInParts = (text: string): boolean => text.length > DOCUMENT_ROW_MAX_CHARS;

/**
 * Stores a large document's text as parts, each its own short transaction, letting the event loop
 * run between ~10 ms slices. Parts of an earlier attempt are replaced. Called before the row that
 * points at them is written (or moved on), so a crash part-way leaves only unreferenced parts.
 */
export async function writeDocumentParts(
  store: PortableStore,
  documentId: string,
  text: string,
  slicer: TimeSlicer = createTimeSlicer(),
): Promise<void> {
  await store.db.write(() => deleteDocumentPartsProgram(documentId));
  let part = 0;
  for (const piece of textParts(text)) {
    const index = part++;
    await store.db.write(() => insertDocumentPartProgram(documentId, index, piece));
    // Wait for the background checkpoint every few parts: written back to back, 50 parts outran it,
    // the WAL passed the writer's own checkpoint threshold, and one commit copied ~40 MB on the loop.
    if (part % PARTS_PER_CHECKPOINT === 0) await checkpointAfterWrites(store);
    else if (slicer.due()) await slicer.yield();
  }
  // The caller's next write (the document row, the ingest's next step) starts on a fresh turn.
  await slicer.yield();
}

/** Parts written between two waits for the background checkpoint (~4 MiB of text, ~1,000+ WAL pages). */
const PARTS_PER_CHECKPOINT = 16;

/**
 * A document's stored text: its `raw_content`, or its parts read one by one with the loop let run
 * between them. The parts are not joined: copying 50 MB into one string held the loop ~25 ms.
 */
export async function readDocumentText(
  store: PortableStore,
  doc: DocumentRow,
  slicer: TimeSlicer = createTimeSlicer(),
): Promise<TextSource> {
  if (doc.raw_content !== null) return doc.raw_content;
  const count = await store.db.read(() => countDocumentPartsProgram(doc.id));
  const parts: string[] = [];
  for (let part = 0; part < count; part++) {
    parts.push((await store.db.read(() => findDocumentPartProgram(doc.id, part))) ?? '');
    if (slicer.due()) await slicer.yield();
  }
  return parts;
}
