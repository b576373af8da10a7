import {
  agentIdSchema,
  contentSchema,
  createTimeSlicer,
  type DocumentId,
  isMemoryError,
  labelSchema,
  type MemoryConfig,
  MemoryError,
  parseInput,
  type Scheduler,
  type TimeSlicer,
} from '@memory/core';
import { type Job, type JobContext, PermanentJobError, type PortableQueue } from '@memory/queue';
import {
  countCurrentChunkLinksProgram,
  type DocumentRow,
  type DocumentStatus,
  type DocumentStatusExtra,
  deleteDocumentPartsProgram,
  exclusiveDocumentMemoryIdsProgram,
  failDocumentInProgressProgram,
  findDocumentProgram,
  forgetMemoryProgram,
  linkedChunkMemoriesProgram,
  listDocumentConversionsProgram,
  listDocumentsProgram,
  type MemoryWriteDeps,
  type PortableStore,
  type Program,
  runWriterProgram,
  setDocumentStatusProgram,
  type WriterTarget,
} from '@memory/store';
import { z } from 'zod';
import { extract, isExtractable } from '../extract/extract.js';
import { ExtractError, REFUSED_TYPES } from '../extract/extract-types.js';
import { createExtractionPool } from '../extract/extraction-pool.js';
import { type MemoryWriter, writeDeps } from '../writer.js';
import { locateChunks } from './chunk-location.js';
import { chunkSpansSliced, type TextSource } from './chunk-text.js';
import { readDocumentText, storedInParts, writeDocumentParts } from './document-text.js';
import {
  type DocumentConversionView,
  type DocumentView,
  locationJson,
  toConversionView,
  toView,
} from './document-view.js';
import { extractText, extractTextParts } from './extract-text.js';
import { DocumentFetchError, fetchDocument } from './fetch-document.js';
import { hashBytes, hashText } from './hash-text.js';
import { indexChunks } from './index-chunks.js';
import { type DocumentExtraction, metadataOf, type RegisteredSource, registerSource } from './register-source.js';
import { chooseConversion, retireEarlierChunks } from './replace-conversion.js';

export const DOCUMENT_INGEST_JOB = 'document_ingest';

function schemas(config: MemoryConfig) {
  const common = {
    agentId: agentIdSchema,
    title: labelSchema(1024, 'title').optional(),
    project: labelSchema(256, 'project').optional(),
  };
  const url = z
    .string()
    .max(8192)
    .refine(
      (u) => URL.canParse(u) && ['http:', 'https:'].includes(new URL(u).protocol),
      'url must be an http or https URL',
    );
  /**
   * Where the source lives (`reports/q3.pdf`): shown with search results and citations, and what
   * identifies it: adding the same path again replaces (or, unchanged, keeps) that document.
   */
  const sourcePath = z.string().min(1).max(4096).optional();
  return {
    add: z.union([
      z.strictObject({ ...common, url }),
      z.strictObject({
        ...common,
        content: contentSchema(config.documents.maxBytes),
        path: sourcePath,
        /** text/plain, text/markdown, text/html or application/json. @default 'text/plain' */
        contentType: z.enum(['text/plain', 'text/markdown', 'text/html', 'application/json']).optional(),
      }),
      z.strictObject({
        ...common,
        path: sourcePath,
        /** The document's bytes (a PDF, a DOCX, HTML, text), extracted by `mediaType`. */
        bytes: z
          .custom<Uint8Array>((b) => b instanceof Uint8Array, 'bytes must be a Uint8Array or Buffer')
          .refine((b) => b.byteLength > 0, 'bytes must not be empty')
          .refine(
            (b) => b.byteLength <= config.documents.maxBytes,
            `bytes must be at most ${config.documents.maxBytes} bytes (documents.maxBytes)`,
          ),
        /** The bytes' media type, e.g. application/pdf; parameters (`; charset=`) are dropped. */
        mediaType: z
          .string()
          .max(256)
          .transform((t) => t.split(';')[0]?.trim().toLowerCase() ?? '')
          .superRefine((t, ctx) => {
            if (isExtractable(t)) return;
            const refused = REFUSED_TYPES[t];
            ctx.addIssue({
              code: 'custom',
              message: refused
                ? `${t} is refused: ${refused}`
                : `mediaType ${t || '(empty)'} is not extracted (text, Markdown, JSON, HTML, PDF and DOCX are)`,
            });
          }),
      }),
    ]),
    scoped: z.strictObject({ agentId: agentIdSchema, id: labelSchema(128, 'id') }),
    list: z.strictObject({
      agentId: agentIdSchema,
      status: z
        .enum(['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed', 'deleted'])
        .optional(),
      limit: z.number().int().min(1).max(500).optional(),
    }),
  };
}

export type AddDocumentInput = z.input<ReturnType<typeof schemas>['add']>;
export type DocumentRef = z.input<ReturnType<typeof schemas>['scoped']>;
export type ListDocumentsInput = z.input<ReturnType<typeof schemas>['list']>;

/** Thrown inside the ingest when the document was deleted: stop, write nothing more. */
class DocumentGone extends Error {}

/** What deleting a document did. */
export interface DocumentDeletion {
  readonly deleted: boolean;
  readonly forgottenChunks: number;
}

/**
 * Documents: registration, the ingest job handler, reading and deletion, on either dialect: `store`
 * (default: the writer's) is a SQLite `Store` or a PostgreSQL one, `queue` the queue's promise API
 * (`createPostgresQueue`, or a SQLite queue's `portable`). `memoryWrites` defaults to
 * `writeDeps(writer)`.
 */
export function createDocuments(deps: {
  writer: MemoryWriter;
  queue: PortableQueue;
  scheduler: Scheduler;
  store?: PortableStore;
  memoryWrites?: MemoryWriteDeps;
}) {
  const { writer, scheduler, queue } = deps;
  const { config } = writer;
  const store: PortableStore = deps.store ?? writer.store;
  const memoryWrites = deps.memoryWrites ?? writeDeps(writer);
  const s = schemas(config);
  const settings = config.documents;

  /** Each status change is its own short transaction; throws `DocumentGone` once the document is deleted. */
  const advance = async (id: string, status: DocumentStatus, extra: DocumentStatusExtra = {}): Promise<void> => {
    const now = store.clock.now();
    const moved = await store.db.write(() => setDocumentStatusProgram(id, status, now, extra));
    if (!moved) throw new DocumentGone();
  };

  /** Where a fetched text is kept: in the row when small, else in parts (the row's copy cleared). */
  async function storeFetchedText(id: string, text: string): Promise<{ raw_content: string | null }> {
    if (!storedInParts(text)) {
      await store.db.write(() => deleteDocumentPartsProgram(id));
      return { raw_content: text };
    }
    await writeDocumentParts(store, id, text);
    return { raw_content: null };
  }

  /**
   * Deletes a document inside the caller's write program (run through `runWriterProgram`): marked
   * deleted, its exclusive chunk memories forgotten with history. Its queued ingest job is the
   * caller's to cancel once the write committed ({@link cancelIngests}); until then a job that
   * runs finds the document deleted and writes nothing.
   */
  function* deleteProgram(
    target: WriterTarget,
    row: DocumentRow,
    actorId: string,
    reason: string,
    now: number,
  ): Program<DocumentDeletion> {
    if (row.status === 'deleted') return { deleted: false, forgottenChunks: 0 };
    const { id, agent_id: agentId } = row;
    yield* setDocumentStatusProgram(id, 'deleted', now);
    const chunks = yield* exclusiveDocumentMemoryIdsProgram(id);
    for (const memoryId of chunks) {
      yield* forgetMemoryProgram(
        target,
        memoryWrites,
        {
          agentId,
          id: memoryId,
          force: true,
          audit: { actor: { id: actorId, type: 'engine' }, reason, metadata: { documentId: id } },
        },
        now,
      );
    }
    return { deleted: true, forgottenChunks: chunks.length };
  }

  /** Cancels the queued ingest jobs of deleted documents (after the write that deleted them). */
  async function cancelIngests(documentIds: readonly string[]): Promise<void> {
    for (const documentId of documentIds) await queue.cancel({ documentId, apply: true });
  }

  // Extraction workers are reused across documents (a folder sync extracts hundreds in a row).
  const pool = createExtractionPool(scheduler);
  const extractOptions = (signal: AbortSignal, charset?: string) => ({
    scheduler,
    signal,
    charset,
    pool,
    limits: {
      maxBytes: settings.maxBytes,
      timeoutMs: settings.extractTimeoutMs,
      maxUnpackedBytes: settings.maxUnpackedBytes,
    },
  });

  /** Bytes through the extractor for their media type, with the lineage to record. */
  async function extractBytes(
    bytes: Uint8Array,
    mediaType: string,
    signal: AbortSignal,
    charset?: string,
  ): Promise<{ text: string; title: string | undefined; contentType: string; extraction: DocumentExtraction }> {
    const result = await extract(bytes, mediaType, extractOptions(signal, charset));
    return {
      text: result.text,
      title: result.title,
      contentType: mediaType,
      extraction: {
        mediaType,
        extractor: result.extractor,
        extractorVersion: result.extractorVersion,
        byteHash: hashBytes(bytes),
        byteLength: bytes.byteLength,
        sections: result.sections,
        warnings: result.warnings,
      },
    };
  }

  async function obtainText(
    doc: DocumentRow,
    signal: AbortSignal,
    slicer: TimeSlicer,
  ): Promise<{ text: TextSource; title: string | undefined; contentType: string; extraction: DocumentExtraction }> {
    if (doc.source_type === 'url' && doc.source_url) {
      const fetched = await fetchDocument(doc.source_url, {
        maxBytes: settings.maxBytes,
        timeoutMs: settings.fetchTimeoutMs,
        maxRedirects: settings.maxRedirects,
        allowList: settings.allowList,
        scheduler,
        signal,
      });
      return extractBytes(fetched.bytes, fetched.contentType, signal, fetched.charset);
    }
    const contentType = doc.content_type ?? 'text/plain';
    const stored = await readDocumentText(store, doc, slicer);
    if (slicer.due()) await slicer.yield();
    const base64 = metadataOf(doc).storedAs === 'base64';
    if (base64 || contentType === 'text/html') {
      const whole = typeof stored === 'string' ? stored : stored.join('');
      return extractBytes(Buffer.from(whole, base64 ? 'base64' : 'utf8'), contentType, signal);
    }
    // Text given as text: read in-process (in parts when large), as it always was; its byte hash is
    // the text's UTF-8 hash.
    const { text, title } =
      typeof stored === 'string' ? extractText(stored, contentType) : extractTextParts(stored, contentType);
    let byteLength = 0;
    for (const part of typeof stored === 'string' ? [stored] : stored) byteLength += Buffer.byteLength(part, 'utf8');
    return {
      text,
      title,
      contentType,
      extraction: {
        mediaType: contentType,
        extractor: contentType === 'application/json' ? 'json' : 'text',
        extractorVersion: '1',
        byteHash: doc.content_hash ?? (await hashText(stored, slicer)),
        byteLength,
        sections: [],
        warnings: [],
      },
    };
  }

  async function ingest(job: Job, context: JobContext): Promise<unknown> {
    const payload = job.payload as { documentId?: unknown; agentId?: unknown };
    if (typeof payload.documentId !== 'string' || typeof payload.agentId !== 'string')
      throw new PermanentJobError('document_ingest payload needs documentId and agentId');
    const doc = await store.db.read(() => findDocumentProgram(payload.agentId as string, payload.documentId as string));
    if (!doc || doc.status === 'deleted') return { skipped: 'deleted' };
    const id = doc.id;
    try {
      await advance(id, 'extracting', { error: null });
      // One time budget for the whole ingest: each step used to start a fresh ~10 ms slice without
      // yielding first, so two steps back to back held the loop twice as long.
      const slicer = createTimeSlicer();
      // A job may start in the same turn as the work that queued it (documents.add, then runDue).
      await slicer.yield();
      const { text, title, contentType, extraction } = await obtainText(doc, context.signal, slicer);
      const conversion = await chooseConversion(store, doc, extraction);
      if (conversion === 'unchanged') {
        // Same bytes, same extractor as the complete conversion: its chunks stand as they are.
        await advance(id, 'done', { error: null });
        return { unchanged: true, conversion: doc.conversion };
      }
      const stored = doc.source_type === 'url' && typeof text === 'string' ? await storeFetchedText(id, text) : {};
      await advance(id, 'chunking', {
        ...stored,
        content_type: contentType,
        metadata_json: JSON.stringify({ ...metadataOf(doc), extraction }),
        // The source bytes' hash: what tells an unchanged source from a changed one.
        content_hash: extraction.byteHash,
        ...(doc.title === null && title ? { title } : {}),
      });
      // Chunking, preparing and embedding a large document is long CPU work: each step runs in
      // ~10 ms slices (embedding on the embedder's own terms: the offline one uses a worker).
      // Each step below starts on a fresh turn of the loop: sharing one budget, a step that ran
      // after the previous one's last slice added its whole cost to that slice (a 1 MB document
      // held the loop ~30 ms from the last chunking slice through locating and the first window).
      await slicer.yield();
      const spans = await chunkSpansSliced(text, settings.chunkSize, settings.chunkOverlap, slicer);
      await slicer.yield();
      const chunks = spans.map((span) => span.text);
      const locations = locateChunks(spans, extraction.sections).map(locationJson);
      await slicer.yield();
      await advance(id, 'embedding', { chunk_count: chunks.length });
      await slicer.yield();
      const indexed = await indexChunks(
        {
          writer,
          store,
          memoryWrites,
          settings,
          origin: { agentId: doc.agent_id, documentId: id, project: doc.project, importance: settings.chunkImportance },
          signal: context.signal,
          slicer,
          known: await store.db.read(() => linkedChunkMemoriesProgram(id)),
          conversion,
          locations,
          advance: (status) => advance(id, status),
          gone: () => new DocumentGone(),
        },
        chunks,
      );
      // Chunks of an earlier conversion that this one did not keep are forgotten (with history).
      const retired =
        conversion > 1
          ? await retireEarlierChunks(store, memoryWrites, { id, agentId: doc.agent_id }, conversion, context.signal)
          : 0;
      // Identical chunks share one memory, so the count comes from the links, not the chunks.
      const memoryCount = await store.db.read(() => countCurrentChunkLinksProgram(id));
      await advance(id, 'done', { memory_count: memoryCount, completed_at: store.clock.now(), error: null });
      return { chunks: chunks.length, indexed, conversion, retired };
    } catch (error) {
      if (error instanceof DocumentGone) return { skipped: 'deleted' };
      const message = error instanceof Error ? error.message : String(error);
      // Interrupted by shutdown: not a failure of the document; it waits for the job's next run.
      const closing = isMemoryError(context.signal.reason, 'ENGINE_CLOSED');
      const now = store.clock.now();
      await store.db.write(() =>
        setDocumentStatusProgram(id, closing ? 'queued' : 'failed', now, { error: closing ? null : message }),
      );
      if (error instanceof DocumentFetchError && error.permanent) throw new PermanentJobError(message);
      // Extraction failures are the bytes' own (malformed, encrypted, no text layer, over a limit):
      // retrying the same bytes gives the same answer.
      if (error instanceof ExtractError) throw new PermanentJobError(`${error.reason}: ${message}`);
      throw error;
    }
  }

  /**
   * Queues a document's ingest: a resumable job (chunks already indexed are skipped on the next
   * run), so interruptions never dead-letter it. An ingest already queued or running is returned.
   */
  function* enqueueIngest(id: string, agentId: string): Program<string> {
    const job = yield* queue.enqueueProgram({
      jobType: DOCUMENT_INGEST_JOB,
      payload: { documentId: id, agentId },
      dedupKey: id,
      agentId,
      documentId: id,
      resumable: true,
    });
    return job.id;
  }

  /**
   * The queue's dead-letter hook for `document_ingest` jobs (register it with `queue.onDead`): a
   * document still in progress is marked `failed` with the reason, retryable with `retry`. A program:
   * it runs inside the transaction that dead-letters the job.
   */
  function* ingestDied(job: Job): Program<void> {
    if (job.documentId === null) return;
    yield* failDocumentInProgressProgram(
      job.documentId,
      `ingest job ${job.id} died: ${job.error ?? 'no error recorded'}; retry the document to ingest it again`,
      store.clock.now(),
    );
  }

  return {
    ingest,
    /** Ends the idle extraction workers (the engine's `close()`). */
    close: () => pool.close(),
    ingestDied,
    /**
     * Queues a failed document's ingest again (status `queued`, error cleared). `NOT_FOUND` outside
     * its scope, `CONFLICT` unless it is `failed`. Returns its id and the job's.
     */
    async retry(input: unknown): Promise<{ id: DocumentId; jobId: string }> {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.retry');
      const now = store.clock.now();
      return store.db.write(function* () {
        const row = yield* findDocumentProgram(agentId, id);
        if (!row) throw new MemoryError('NOT_FOUND', `no document ${id} in this scope`, { details: { id } });
        if (row.status !== 'failed')
          throw new MemoryError('CONFLICT', `document ${id} is ${row.status}; only a failed document is retried`, {
            details: { id, status: row.status },
          });
        yield* setDocumentStatusProgram(id, 'queued', now, { error: null });
        return { id: row.id as DocumentId, jobId: yield* enqueueIngest(id, agentId) };
      });
    },
    /**
     * Registers a document and queues its ingest, unless the scope already holds this source (same
     * URL, same path, or for text and bytes with neither, the same bytes): then an unchanged source
     * (same bytes, same extractor version) is a no-op (`outcome: 'unchanged'`, `jobId: null`), and a
     * changed one (or a URL, fetched again) queues that document again (`'updated'`): its ingest
     * replaces its chunks and keeps the previous conversion in its history.
     */
    async add(input: unknown): Promise<RegisteredSource> {
      // Validating a large text takes milliseconds: it counts towards the first slice of hashing.
      const slicer = createTimeSlicer();
      const request = parseInput(s.add, input, 'documents.add');
      const isUrl = 'url' in request;
      const isBytes = 'bytes' in request;
      // Bytes wait for their ingest as base64 text, the form the document's text columns hold.
      const content = isUrl ? null : isBytes ? Buffer.from(request.bytes).toString('base64') : request.content;
      const contentHash = isBytes
        ? hashBytes(request.bytes)
        : content === null
          ? null
          : await hashText(content, slicer);
      return registerSource(
        { store, enqueueIngest },
        {
          agentId: request.agentId,
          project: request.project ?? null,
          title: request.title ?? null,
          url: isUrl ? request.url : null,
          path: isUrl ? null : (request.path ?? null),
          connectorId: null,
          content,
          base64: isBytes,
          contentType: isUrl ? null : isBytes ? request.mediaType : (request.contentType ?? 'text/plain'),
          contentHash,
        },
        store.ids.next() as DocumentId,
      );
    },
    /** Registers a source inside a connector sync (see `registerSource`); `within` writes the connector's rows. */
    register: (
      input: Parameters<typeof registerSource>[1],
      within?: Parameters<typeof registerSource>[3],
    ): Promise<RegisteredSource> =>
      registerSource({ store, enqueueIngest }, input, store.ids.next() as DocumentId, within),
    /** A document's earlier conversions, oldest first (empty outside its scope). */
    async conversions(input: unknown): Promise<DocumentConversionView[]> {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.conversions');
      return (await store.db.read(() => listDocumentConversionsProgram(agentId, id))).map(toConversionView);
    },
    async get(input: unknown): Promise<DocumentView | undefined> {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.get');
      const row = await store.db.read(() => findDocumentProgram(agentId, id));
      return row ? toView(row) : undefined;
    },
    async list(input: unknown): Promise<DocumentView[]> {
      const request = parseInput(s.list, input, 'documents.list');
      const filter = { agentId: request.agentId, status: request.status, limit: request.limit ?? 50 };
      return (await store.db.read(() => listDocumentsProgram(filter))).map(toView);
    },
    /**
     * Deletes a document: it stops any ingest in flight (nothing is written after), cancels its
     * queued job, and forgets the chunk memories that no other document shares (with history).
     */
    async delete(input: unknown): Promise<DocumentDeletion> {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.delete');
      const now = store.clock.now();
      const result = await runWriterProgram(store, { agentIds: [agentId] }, function* (target) {
        const row = yield* findDocumentProgram(agentId, id);
        if (!row) throw new MemoryError('NOT_FOUND', `no document ${id} in this scope`, { details: { id } });
        return yield* deleteProgram(target, row, 'document-delete', `document ${id} deleted`, now);
      });
      if (result.deleted) await cancelIngests([id]);
      return result;
    },
    /**
     * {@link delete} inside the caller's write program (a connector whose file is gone, a registry
     * category removed): the document marked deleted, its exclusive chunk memories forgotten with
     * history. Cancel its ingest with `cancelIngests` once the write committed.
     */
    deleteProgram,
    cancelIngests,
  };
}

export type Documents = ReturnType<typeof createDocuments>;
