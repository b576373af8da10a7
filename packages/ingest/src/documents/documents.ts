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
import { type Job, type JobContext, PermanentJobError, type Queue } from '@memory/queue';
import {
  countCurrentChunkLinks,
  type DocumentRow,
  type DocumentStatus,
  deleteDocumentParts,
  exclusiveDocumentMemoryIds,
  failDocumentInProgress,
  findDocument,
  forgetMemoryRecord,
  linkedChunkMemories,
  listDocumentConversions,
  listDocuments,
  type SqlExecutor,
  setDocumentStatus,
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

/** Documents: registration, the ingest job handler, reading and deletion. */
export function createDocuments(deps: { writer: MemoryWriter; queue: Queue; scheduler: Scheduler }) {
  const { writer, queue, scheduler } = deps;
  const { store, config } = writer;
  const s = schemas(config);
  const settings = config.documents;

  /** Each status change is its own short transaction; false once the document is deleted. */
  const advance = (id: string, status: DocumentStatus, extra: Parameters<typeof setDocumentStatus>[4] = {}): void => {
    const moved = store.write((sql) => setDocumentStatus(sql, id, status, store.clock.now(), extra));
    if (!moved) throw new DocumentGone();
  };

  /** Where a fetched text is kept: in the row when small, else in parts (the row's copy cleared). */
  async function storeFetchedText(id: string, text: string): Promise<{ raw_content: string | null }> {
    if (!storedInParts(text)) {
      store.write((sql) => deleteDocumentParts(sql, id));
      return { raw_content: text };
    }
    await writeDocumentParts(store, id, text);
    return { raw_content: null };
  }

  function deleteWithin(
    sql: SqlExecutor,
    row: DocumentRow,
    actorId: string,
    reason: string,
  ): { deleted: boolean; forgottenChunks: number } {
    if (row.status === 'deleted') return { deleted: false, forgottenChunks: 0 };
    const { id, agent_id: agentId } = row;
    const now = store.clock.now();
    setDocumentStatus(sql, id, 'deleted', now);
    const chunks = exclusiveDocumentMemoryIds(sql, id);
    for (const memoryId of chunks) {
      forgetMemoryRecord(
        sql,
        writeDeps(writer),
        {
          agentId,
          id: memoryId,
          force: true,
          audit: { actor: { id: actorId, type: 'engine' }, reason, metadata: { documentId: id } },
        },
        now,
      );
    }
    queue.cancel({ documentId: id, apply: true });
    return { deleted: true, forgottenChunks: chunks.length };
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
    const doc = store.read((sql) => findDocument(sql, payload.agentId as string, payload.documentId as string));
    if (!doc || doc.status === 'deleted') return { skipped: 'deleted' };
    const id = doc.id;
    try {
      advance(id, 'extracting', { error: null });
      // One time budget for the whole ingest: each step used to start a fresh ~10 ms slice without
      // yielding first, so two steps back to back held the loop twice as long.
      const slicer = createTimeSlicer();
      // A job may start in the same turn as the work that queued it (documents.add, then runDue).
      await slicer.yield();
      const { text, title, contentType, extraction } = await obtainText(doc, context.signal, slicer);
      const conversion = chooseConversion(writer, doc, extraction);
      if (conversion === 'unchanged') {
        // Same bytes, same extractor as the complete conversion: its chunks stand as they are.
        advance(id, 'done', { error: null });
        return { unchanged: true, conversion: doc.conversion };
      }
      const stored = doc.source_type === 'url' && typeof text === 'string' ? await storeFetchedText(id, text) : {};
      advance(id, 'chunking', {
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
      advance(id, 'embedding', { chunk_count: chunks.length });
      await slicer.yield();
      const indexed = await indexChunks(
        {
          writer,
          store,
          settings,
          origin: { agentId: doc.agent_id, documentId: id, project: doc.project, importance: settings.chunkImportance },
          signal: context.signal,
          slicer,
          known: store.read((sql) => linkedChunkMemories(sql, id)),
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
          ? await retireEarlierChunks(writer, { id, agentId: doc.agent_id }, conversion, context.signal)
          : 0;
      // Identical chunks share one memory, so the count comes from the links, not the chunks.
      const memoryCount = store.read((sql) => countCurrentChunkLinks(sql, id));
      advance(id, 'done', { memory_count: memoryCount, completed_at: store.clock.now(), error: null });
      return { chunks: chunks.length, indexed, conversion, retired };
    } catch (error) {
      if (error instanceof DocumentGone) return { skipped: 'deleted' };
      const message = error instanceof Error ? error.message : String(error);
      // Interrupted by shutdown: not a failure of the document; it waits for the job's next run.
      const closing = isMemoryError(context.signal.reason, 'ENGINE_CLOSED');
      store.write((sql) =>
        setDocumentStatus(sql, id, closing ? 'queued' : 'failed', store.clock.now(), {
          error: closing ? null : message,
        }),
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
  const enqueueIngest = (id: string, agentId: string): string =>
    queue.enqueue({
      jobType: DOCUMENT_INGEST_JOB,
      payload: { documentId: id, agentId },
      dedupKey: id,
      agentId,
      documentId: id,
      resumable: true,
    }).id;

  return {
    ingest,
    /** Ends the idle extraction workers (the engine's `close()`). */
    close: () => pool.close(),
    /**
     * The queue's dead-letter hook for `document_ingest` jobs (register it with `queue.onDead`): a
     * document still in progress is marked `failed` with the reason, retryable with `retry`.
     */
    ingestDied(sql: SqlExecutor, job: Job): void {
      if (job.documentId === null) return;
      failDocumentInProgress(
        sql,
        job.documentId,
        `ingest job ${job.id} died: ${job.error ?? 'no error recorded'}; retry the document to ingest it again`,
        store.clock.now(),
      );
    },
    /**
     * Queues a failed document's ingest again (status `queued`, error cleared). `NOT_FOUND` outside
     * its scope, `CONFLICT` unless it is `failed`. Returns its id and the job's.
     */
    retry(input: unknown): { id: DocumentId; jobId: string } {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.retry');
      return store.write((sql) => {
        const row = findDocument(sql, agentId, id);
        if (!row) throw new MemoryError('NOT_FOUND', `no document ${id} in this scope`, { details: { id } });
        if (row.status !== 'failed')
          throw new MemoryError('CONFLICT', `document ${id} is ${row.status}; only a failed document is retried`, {
            details: { id, status: row.status },
          });
        setDocumentStatus(sql, id, 'queued', store.clock.now(), { error: null });
        return { id: row.id as DocumentId, jobId: enqueueIngest(id, agentId) };
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
    conversions(input: unknown): DocumentConversionView[] {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.conversions');
      return store.read((sql) => listDocumentConversions(sql, agentId, id)).map(toConversionView);
    },
    get(input: unknown): DocumentView | undefined {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.get');
      const row = store.read((sql) => findDocument(sql, agentId, id));
      return row ? toView(row) : undefined;
    },
    list(input: unknown): DocumentView[] {
      const request = parseInput(s.list, input, 'documents.list');
      return store
        .read((sql) =>
          listDocuments(sql, { agentId: request.agentId, status: request.status, limit: request.limit ?? 50 }),
        )
        .map(toView);
    },
    /**
     * Deletes a document: it stops any ingest in flight (nothing is written after), cancels its
     * queued job, and forgets the chunk memories that no other document shares (with history).
     */
    delete(input: unknown): { deleted: boolean; forgottenChunks: number } {
      const { agentId, id } = parseInput(s.scoped, input, 'documents.delete');
      return store.write((sql) => {
        const row = findDocument(sql, agentId, id);
        if (!row) throw new MemoryError('NOT_FOUND', `no document ${id} in this scope`, { details: { id } });
        return deleteWithin(sql, row, 'document-delete', `document ${id} deleted`);
      });
    },
    /**
     * {@link delete} inside the caller's write transaction (a connector whose file is gone): the
     * document marked deleted, its job cancelled, its exclusive chunk memories forgotten with history.
     */
    deleteWithin,
  };
}

export type Documents = ReturnType<typeof createDocuments>;
