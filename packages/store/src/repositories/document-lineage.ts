import type { Selectable } from 'kysely';
import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { DocumentConversionsTable } from '../schema/documents.js';
import type { DocumentRow } from './documents.js';

export type DocumentConversionRow = Selectable<DocumentConversionsTable>;

// Each function has a program form (`...Program`, issue 18) that runs on either dialect; the
// synchronous function runs it on a SQLite executor.

/** How a source is identified in its scope. */
export type DocumentSource =
  | { readonly url: string }
  | { readonly path: string; readonly connectorId: string | null }
  | { readonly contentHash: string };

/**
 * The live document that holds a source in `agentId`'s scope: by URL, by path (inside a connector,
 * or given with no connector), or, for content with neither, by the hash of its bytes.
 */
export function findDocumentBySource(
  sql: SqlExecutor,
  agentId: string,
  source: DocumentSource,
): DocumentRow | undefined {
  return runSqliteProgram(sql, findDocumentBySourceProgram(agentId, source));
}

/** {@link findDocumentBySource} as a program. */
export function* findDocumentBySourceProgram(
  agentId: string,
  source: DocumentSource,
): Program<DocumentRow | undefined> {
  let query = queryBuilder
    .selectFrom('documents')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('status', '!=', 'deleted');
  if ('url' in source) query = query.where('source_url', '=', source.url);
  else if ('path' in source)
    query = query
      .where('source_path', '=', source.path)
      .where('connector_id', source.connectorId === null ? 'is' : '=', source.connectorId);
  else
    query = query
      .where('content_hash', '=', source.contentHash)
      .where('source_url', 'is', null)
      .where('source_path', 'is', null);
  return yield* get<DocumentRow>(query.orderBy('created_at', 'desc').limit(1));
}

export type RequeuedSource = Pick<DocumentRow, 'content_hash' | 'content_type' | 'raw_content' | 'metadata_json'>;

/**
 * Points a live document at a new version of its source (new text or bytes to convert) and queues
 * it again: its current conversion and chunks stay until the ingest replaces them.
 */
export function requeueDocumentSource(sql: SqlExecutor, id: string, values: RequeuedSource, now: number): boolean {
  return runSqliteProgram(sql, requeueDocumentSourceProgram(id, values, now));
}

/** {@link requeueDocumentSource} as a program. */
export function* requeueDocumentSourceProgram(id: string, values: RequeuedSource, now: number): Program<boolean> {
  const result = yield* run(
    queryBuilder
      .updateTable('documents')
      .set({ ...values, status: 'queued', error: null, updated_at: now })
      .where('id', '=', id)
      .where('status', '!=', 'deleted'),
  );
  return result.changes > 0;
}

export interface ConversionLineage {
  readonly contentType: string | null;
  readonly contentHash: string | null;
  readonly extractionJson: string;
}

/**
 * Starts a document's next conversion: the current one's lineage goes to `document_conversions`, the
 * document's conversion number goes up and it is no longer complete (its chunks are being replaced).
 */
export function beginNextConversion(
  sql: SqlExecutor,
  doc: DocumentRow,
  previous: ConversionLineage,
  now: number,
): number {
  return runSqliteProgram(sql, beginNextConversionProgram(doc, previous, now));
}

/** {@link beginNextConversion} as a program. */
export function* beginNextConversionProgram(
  doc: DocumentRow,
  previous: ConversionLineage,
  now: number,
): Program<number> {
  yield* run(
    queryBuilder
      .insertInto('document_conversions')
      .values({
        document_id: doc.id,
        conversion: doc.conversion,
        agent_id: doc.agent_id,
        content_type: previous.contentType,
        content_hash: previous.contentHash,
        extraction_json: previous.extractionJson,
        chunk_count: doc.chunk_count,
        memory_count: doc.memory_count,
        completed_at: doc.completed_at,
        replaced_at: now,
      })
      .onConflict((oc) => oc.doNothing()),
  );
  const next = doc.conversion + 1;
  yield* run(
    queryBuilder
      .updateTable('documents')
      .set({ conversion: next, completed_at: null, updated_at: now })
      .where('id', '=', doc.id),
  );
  return next;
}

/** A document's earlier conversions in `agentId`'s scope, oldest first. */
export function listDocumentConversions(
  sql: SqlExecutor,
  agentId: string,
  documentId: string,
): DocumentConversionRow[] {
  return runSqliteProgram(sql, listDocumentConversionsProgram(agentId, documentId));
}

/** {@link listDocumentConversions} as a program. */
export function* listDocumentConversionsProgram(agentId: string, documentId: string): Program<DocumentConversionRow[]> {
  return yield* all<DocumentConversionRow>(
    queryBuilder
      .selectFrom('document_conversions')
      .selectAll()
      .where('document_id', '=', documentId)
      .where('agent_id', '=', agentId)
      .orderBy('conversion'),
  );
}

const LINKED_CHUNKS = `SELECT m.content_hash, d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id
  WHERE d.document_id = ? AND m.is_deleted = 0`;

/**
 * Live memories linked to a document (by any of its conversions), by content hash: an ingest skips
 * those it already wrote (an interrupted run) and re-links those an earlier conversion shares.
 */
export function linkedChunkMemories(sql: SqlExecutor, documentId: string): Map<string, string> {
  return runSqliteProgram(sql, linkedChunkMemoriesProgram(documentId));
}

/** {@link linkedChunkMemories} as a program. */
export function* linkedChunkMemoriesProgram(documentId: string): Program<Map<string, string>> {
  const rows = yield* all<{ content_hash: string; memory_id: string }>(portable(LINKED_CHUNKS, documentId));
  return new Map(rows.map((r) => [r.content_hash, r.memory_id]));
}

// Valid on both dialects: PostgreSQL reads `excluded` and the target table's name the same way.
const LINK_CHUNK = `INSERT INTO document_memories (document_id, memory_id, chunk_index, conversion, location_json)
  VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (document_id, memory_id) DO UPDATE SET
    chunk_index = excluded.chunk_index, conversion = excluded.conversion, location_json = excluded.location_json
  WHERE document_memories.conversion < excluded.conversion`;

export interface ChunkLink {
  readonly documentId: string;
  readonly memoryId: string;
  readonly chunkIndex: number;
  readonly conversion: number;
  readonly location: string | null;
}

/**
 * Links a chunk memory to a document's conversion at a position. A link from an earlier conversion
 * moves to this one; within one conversion the first position of a repeated chunk is kept.
 */
export function linkChunk(sql: SqlExecutor, link: ChunkLink): void {
  runSqliteProgram(sql, linkChunkProgram(link));
}

/** {@link linkChunk} as a program. */
export function* linkChunkProgram(link: ChunkLink): Program<void> {
  yield* run(portable(LINK_CHUNK, link.documentId, link.memoryId, link.chunkIndex, link.conversion, link.location));
}

// Ordered so that both dialects retire the same memories in the same batches.
const RETIRED_CHUNKS = `SELECT d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id AND m.is_deleted = 0
  WHERE d.document_id = ? AND d.conversion < ? AND NOT EXISTS (
    SELECT 1 FROM document_memories o JOIN documents od ON od.id = o.document_id AND od.status != 'deleted'
    WHERE o.memory_id = d.memory_id AND o.document_id != d.document_id)
  ORDER BY d.memory_id
  LIMIT ?`;

/**
 * Up to `limit` live memories an earlier conversion of the document produced that the current one
 * did not keep and that no other live document links: what replacing the conversion forgets.
 */
export function retiredChunkMemoryIds(sql: SqlExecutor, documentId: string, conversion: number, limit: number) {
  return runSqliteProgram(sql, retiredChunkMemoryIdsProgram(documentId, conversion, limit));
}

/** {@link retiredChunkMemoryIds} as a program. */
export function* retiredChunkMemoryIdsProgram(
  documentId: string,
  conversion: number,
  limit: number,
): Program<string[]> {
  const rows = yield* all<{ memory_id: string }>(portable(RETIRED_CHUNKS, documentId, conversion, limit));
  return rows.map((r) => r.memory_id);
}

const CURRENT_LINKS = `SELECT count(*) AS n FROM document_memories d JOIN documents doc ON doc.id = d.document_id
  WHERE d.document_id = ? AND d.conversion = doc.conversion`;

/** Chunk links of the document's current conversion (what `memoryCount` reports). */
export function countCurrentChunkLinks(sql: SqlExecutor, documentId: string): number {
  return runSqliteProgram(sql, countCurrentChunkLinksProgram(documentId));
}

/** {@link countCurrentChunkLinks} as a program. */
export function* countCurrentChunkLinksProgram(documentId: string): Program<number> {
  return Number((yield* get<{ n: number }>(portable(CURRENT_LINKS, documentId)))?.n ?? 0);
}

/** Where a chunk memory came from: its document (live, current conversion) and its place in it. */
export interface ChunkSourceRow {
  readonly memory_id: string;
  readonly document_id: string;
  readonly title: string | null;
  readonly source_url: string | null;
  readonly source_path: string | null;
  readonly connector_id: string | null;
  readonly content_type: string | null;
  readonly chunk_index: number;
  readonly location_json: string | null;
}

const CHUNK_SOURCES = (
  memoryIn: string,
) => `SELECT d.memory_id, d.document_id, doc.title, doc.source_url, doc.source_path,
    doc.connector_id, doc.content_type, d.chunk_index, d.location_json
  FROM document_memories d
  JOIN documents doc ON doc.id = d.document_id AND doc.agent_id = ? AND doc.status != 'deleted'
    AND d.conversion = doc.conversion
  WHERE ${memoryIn}
  ORDER BY doc.created_at, doc.id`;
const CHUNK_SOURCES_SQLITE = CHUNK_SOURCES('d.memory_id IN (SELECT value FROM json_each(?))');
const CHUNK_SOURCES_POSTGRES = portable(CHUNK_SOURCES('d.memory_id = ANY(?::text[])')).postgres.sql;

/** The sources of chunk memories in `agentId`'s scope (a memory several documents share: the oldest link). */
export function findChunkSources(sql: SqlExecutor, agentId: string, memoryIds: readonly string[]): ChunkSourceRow[] {
  return runSqliteProgram(sql, findChunkSourcesProgram(agentId, memoryIds));
}

/** {@link findChunkSources} as a program. */
export function* findChunkSourcesProgram(agentId: string, memoryIds: readonly string[]): Program<ChunkSourceRow[]> {
  if (memoryIds.length === 0) return [];
  return yield* all<ChunkSourceRow>(
    perDialect(
      raw(CHUNK_SOURCES_SQLITE, agentId, JSON.stringify(memoryIds)),
      raw(CHUNK_SOURCES_POSTGRES, agentId, [...memoryIds]),
    ),
  );
}

/** A connector's document follows its file to a new path (a rename: same bytes, nothing re-ingested). */
export function moveDocumentSource(
  sql: SqlExecutor,
  id: string,
  path: string,
  title: string | null,
  now: number,
): void {
  runSqliteProgram(sql, moveDocumentSourceProgram(id, path, title, now));
}

/** {@link moveDocumentSource} as a program. */
export function* moveDocumentSourceProgram(id: string, path: string, title: string | null, now: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('documents')
      .set({ source_path: path, ...(title ? { title } : {}), updated_at: now })
      .where('id', '=', id),
  );
}
