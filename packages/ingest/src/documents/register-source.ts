import { type DocumentId, MemoryError } from '@memory/core';
import {
  type DocumentRow,
  deleteDocumentPartsProgram,
  findDocumentBySourceProgram,
  insertDocumentProgram,
  type PortableStore,
  type Program,
  requeueDocumentSourceProgram,
  setDocumentStatusProgram,
} from '@memory/store';
import { extractorFor } from '../extract/extract.js';
import type { ExtractedSection } from '../extract/extract-types.js';
import { storedInParts, writeDocumentParts } from './document-text.js';

/** A document's conversion lineage: what its bytes were, what turned them into text. */
export interface DocumentExtraction {
  readonly mediaType: string;
  readonly extractor: string;
  readonly extractorVersion: string;
  /** sha256 (hex) of the source bytes (of the UTF-8 text for text given as `content`). */
  readonly byteHash: string;
  readonly byteLength: number;
  readonly sections: readonly ExtractedSection[];
  readonly warnings: readonly string[];
}

export interface DocumentMetadata {
  /** `base64`: `raw_content` (or its parts) holds the source bytes, given as `bytes`. */
  readonly storedAs?: 'base64';
  /** The last ingest job queued for the document: what `add` returns for an unchanged source. */
  readonly ingestJobId?: string;
  readonly extraction?: DocumentExtraction;
}

export const metadataOf = (row: Pick<DocumentRow, 'metadata_json'>): DocumentMetadata => {
  try {
    return JSON.parse(row.metadata_json) as DocumentMetadata;
  } catch {
    return {};
  }
};

/**
 * What `documents.add` (or a connector) did with a source: `added` a new document; found it
 * `unchanged` (same bytes, same extractor version: nothing queued); or `updated` the document that
 * holds it (changed bytes, a URL to fetch again, a failed document retried), whose ingest replaces
 * its chunks and keeps the previous conversion in its history.
 */
export type SourceOutcome = 'added' | 'unchanged' | 'updated';

/** A source to register: a URL, or text or bytes (base64) with their hash, optionally at a path. */
export interface SourceInput {
  readonly agentId: string;
  readonly project: string | null;
  readonly title: string | null;
  readonly url: string | null;
  /** A file's path (inside its connector's root, or as the host names it). */
  readonly path: string | null;
  readonly connectorId: string | null;
  /** Text, or base64 bytes (`base64: true`); null for a URL. */
  readonly content: string | null;
  readonly base64: boolean;
  readonly contentType: string | null;
  /** sha256 of the source bytes (of the text's UTF-8 for text); null for a URL. */
  readonly contentHash: string | null;
}

export interface RegisteredSource {
  readonly id: DocumentId;
  /**
   * The ingest job queued; for an `unchanged` source, the last one queued for the document (it
   * may have been pruned since; empty for documents older than this field).
   */
  readonly jobId: string;
  readonly outcome: SourceOutcome;
}

/** How a source is looked up: by URL, by path, or (text or bytes with neither) by its hash. */
const identity = (input: SourceInput) =>
  input.url !== null
    ? { url: input.url }
    : input.path !== null
      ? { path: input.path, connectorId: input.connectorId }
      : { contentHash: input.contentHash ?? '' };

/** True when the live document already holds exactly these bytes, converted by today's extractor. */
function unchanged(existing: DocumentRow, input: SourceInput): boolean {
  if (input.url !== null || existing.status === 'failed') return false;
  if (existing.content_hash !== input.contentHash || existing.content_type !== input.contentType) return false;
  const previous = metadataOf(existing).extraction;
  if (!previous) return true; // still being ingested from these very bytes
  const today = input.contentType ? extractorFor(input.contentType) : undefined;
  return previous.extractor === today?.extractor && previous.extractorVersion === today?.extractorVersion;
}

/** What registering a source needs: the store, and the ingest's enqueue as a program (same transaction). */
export interface RegisterDeps {
  readonly store: PortableStore;
  enqueueIngest(id: string, agentId: string): Program<string>;
}

/**
 * Registers a source: a new document and its ingest job, or, when a live document of the scope
 * already holds the same source, nothing (unchanged) or that document pointed at the new version
 * and queued again. A large text goes in parts first; the rows (and the caller's own, in `within`,
 * such as a connector's cursor) are written in one transaction, which on PostgreSQL may run more
 * than once (a serialization retry): `within` must be a program without other side effects.
 */
export async function registerSource(
  deps: RegisterDeps,
  input: SourceInput,
  newId: DocumentId,
  within?: (registered: RegisteredSource) => Program<void>,
): Promise<RegisteredSource> {
  const { store } = deps;
  const before = await store.db.read(() => findDocumentBySourceProgram(input.agentId, identity(input)));
  const target = (before?.id as DocumentId | undefined) ?? newId;
  const inParts = input.content !== null && storedInParts(input.content);
  if (inParts && input.content !== null && !(before && unchanged(before, input)))
    await writeDocumentParts(store, target, input.content);
  const now = store.clock.now();
  return store.db.write(function* () {
    const existing = yield* findDocumentBySourceProgram(input.agentId, identity(input));
    /** Queues the document's ingest and records the job on it. */
    function* queue(id: string, metadata: DocumentMetadata): Program<string> {
      const jobId = yield* deps.enqueueIngest(id, input.agentId);
      yield* setDocumentStatusProgram(id, 'queued', now, {
        error: null,
        metadata_json: JSON.stringify({ ...metadata, ingestJobId: jobId }),
      });
      return jobId;
    }
    let result: RegisteredSource;
    if (existing && unchanged(existing, input)) {
      const jobId = metadataOf(existing).ingestJobId ?? '';
      result = { id: existing.id as DocumentId, jobId, outcome: 'unchanged' };
    } else if (existing && input.url !== null) {
      // A URL is fetched again; its ingest compares the bytes and leaves the chunks alone if equal.
      // An ingest in flight is that fetch already: its job is returned as is.
      const inFlight = existing.status !== 'done' && existing.status !== 'failed';
      const jobId = inFlight
        ? yield* deps.enqueueIngest(existing.id, input.agentId)
        : yield* queue(existing.id, metadataOf(existing));
      result = { id: existing.id as DocumentId, jobId, outcome: 'updated' };
    } else if (existing) {
      if (existing.id !== target)
        throw new MemoryError('CONFLICT', 'the same source was registered twice at once; add it again', {
          details: { id: existing.id },
        });
      if (!inParts) yield* deleteDocumentPartsProgram(existing.id);
      const { storedAs: _, ...kept } = metadataOf(existing);
      const metadata: DocumentMetadata = input.base64 ? { ...kept, storedAs: 'base64' } : kept;
      yield* requeueDocumentSourceProgram(
        existing.id,
        {
          content_hash: input.contentHash,
          content_type: input.contentType,
          raw_content: inParts ? null : input.content,
          metadata_json: JSON.stringify(metadata),
        },
        now,
      );
      result = { id: existing.id as DocumentId, jobId: yield* queue(existing.id, metadata), outcome: 'updated' };
    } else {
      yield* insertDocumentProgram({
        id: newId,
        agent_id: input.agentId,
        project: input.project,
        source_url: input.url,
        source_type: input.url !== null ? 'url' : input.base64 || input.path !== null ? 'file' : 'text',
        content_type: input.contentType,
        content_hash: input.contentHash,
        title: input.title,
        raw_content: inParts ? null : input.content,
        status: 'queued',
        error: null,
        connector_id: input.connectorId,
        chunk_count: 0,
        memory_count: 0,
        metadata_json: '{}',
        created_at: now,
        updated_at: now,
        completed_at: null,
        source_path: input.path,
        conversion: 1,
      });
      result = { id: newId, jobId: yield* queue(newId, input.base64 ? { storedAs: 'base64' } : {}), outcome: 'added' };
    }
    if (within) yield* within(result);
    return result;
  });
}
