import type { Selectable } from 'kysely';
import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { DocumentConversionsTable } from '../schema/documents.js';
import type { DocumentRow } from './documents.js';

export type DocumentConversionRow = Selectable<DocumentConversionsTable>;

/**
 * The live document that holds a source in `agentId`'s scope: by URL, by path (inside a connector,
 * or given with no connector), or, for content with neither, by the hash of its bytes.
 */
export function findDocumentBySource(
  sql: SqlExecutor,
  agentId: string,
  source:
    | { readonly url: string }
    | { readonly path: string; readonly connectorId: string | null }
    | { readonly contentHash: string },
): DocumentRow | undefined {
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
  return sql.get(query.orderBy('created_at', 'desc').limit(1).compile());
}

/**
 * Points a live document at a new version of its source (new text or bytes to convert) and queues
 * it again: its current conversion and chunks stay until the ingest replaces them.
 */
export function requeueDocumentSource(
  sql: SqlExecutor,
  id: string,
  values: Pick<DocumentRow, 'content_hash' | 'content_type' | 'raw_content' | 'metadata_json'>,
  now: number,
): boolean {
  return (
    sql.run(
      queryBuilder
        .updateTable('documents')
        .set({ ...values, status: 'queued', error: null, updated_at: now })
        .where('id', '=', id)
        .where('status', '!=', 'deleted')
        .compile(),
    ).changes > 0
  );
}

/**
 * Starts a document's next conversion: the current one's lineage goes to `document_conversions`, the
 * document's conversion number goes up and it is no longer complete (its chunks are being replaced).
 */
export function beginNextConversion(
  sql: SqlExecutor,
  doc: DocumentRow,
  previous: { contentType: string | null; contentHash: string | null; extractionJson: string },
  now: number,
): number {
  sql.run(
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
      .onConflict((oc) => oc.doNothing())
      .compile(),
  );
  const next = doc.conversion + 1;
  sql.run(
    queryBuilder
      .updateTable('documents')
      .set({ conversion: next, completed_at: null, updated_at: now })
      .where('id', '=', doc.id)
      .compile(),
  );
  return next;
}

/** A document's earlier conversions in `agentId`'s scope, oldest first. */
export function listDocumentConversions(
  sql: SqlExecutor,
  agentId: string,
  documentId: string,
): DocumentConversionRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('document_conversions')
      .selectAll()
      .where('document_id', '=', documentId)
      .where('agent_id', '=', agentId)
      .orderBy('conversion')
      .compile(),
  );
}

/**
 * Live memories linked to a document (by any of its conversions), by content hash: an ingest skips
 * those it already wrote (an interrupted run) and re-links those an earlier conversion shares.
 */
export function linkedChunkMemories(sql: SqlExecutor, documentId: string): Map<string, string> {
  const rows = sql.all<{ content_hash: string; memory_id: string }>(
    raw(
      `SELECT m.content_hash, d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id
       WHERE d.document_id = ? AND m.is_deleted = 0`,
      documentId,
    ),
  );
  return new Map(rows.map((r) => [r.content_hash, r.memory_id]));
}

/**
 * Links a chunk memory to a document's conversion at a position. A link from an earlier conversion
 * moves to this one; within one conversion the first position of a repeated chunk is kept.
 */
export function linkChunk(
  sql: SqlExecutor,
  link: { documentId: string; memoryId: string; chunkIndex: number; conversion: number; location: string | null },
): void {
  sql.run(
    raw(
      `INSERT INTO document_memories (document_id, memory_id, chunk_index, conversion, location_json)
       VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (document_id, memory_id) DO UPDATE SET
         chunk_index = excluded.chunk_index, conversion = excluded.conversion, location_json = excluded.location_json
       WHERE document_memories.conversion < excluded.conversion`,
      link.documentId,
      link.memoryId,
      link.chunkIndex,
      link.conversion,
      link.location,
    ),
  );
}

/**
 * Up to `limit` live memories an earlier conversion of the document produced that the current one
 * did not keep and that no other live document links: what replacing the conversion forgets.
 */
export function retiredChunkMemoryIds(sql: SqlExecutor, documentId: string, conversion: number, limit: number) {
  return sql
    .all<{ memory_id: string }>(
      raw(
        `SELECT d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id AND m.is_deleted = 0
         WHERE d.document_id = ? AND d.conversion < ? AND NOT EXISTS (
           SELECT 1 FROM document_memories o JOIN documents od ON od.id = o.document_id AND od.status != 'deleted'
           WHERE o.memory_id = d.memory_id AND o.document_id != d.document_id)
         LIMIT ?`,
        documentId,
        conversion,
        limit,
      ),
    )
    .map((r) => r.memory_id);
}

/** Chunk links of the document's current conversion (what `memoryCount` reports). */
export function countCurrentChunkLinks(sql: SqlExecutor, documentId: string): number {
  return (
    sql.get<{ n: number }>(
      raw(
        `SELECT count(*) AS n FROM document_memories d JOIN documents doc ON doc.id = d.document_id
         WHERE d.document_id = ? AND d.conversion = doc.conversion`,
        documentId,
      ),
    )?.n ?? 0
  );
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

const CHUNK_SOURCES = `SELECT d.memory_id, d.document_id, doc.title, doc.source_url, doc.source_path, doc.connector_id,
              doc.content_type, d.chunk_index, d.location_json
       FROM document_memories d
       JOIN documents doc ON doc.id = d.document_id AND doc.agent_id = ? AND doc.status != 'deleted'
         AND d.conversion = doc.conversion
       WHERE d.memory_id IN (SELECT value FROM json_each(?))
       ORDER BY doc.created_at, doc.id`;
const CHUNK_SOURCES_POSTGRES = `SELECT d.memory_id, d.document_id, doc.title, doc.source_url, doc.source_path, doc.connector_id,
              doc.content_type, d.chunk_index, d.location_json
       FROM document_memories d
       JOIN documents doc ON doc.id = d.document_id AND doc.agent_id = $1 AND doc.status != 'deleted'
         AND d.conversion = doc.conversion
       WHERE d.memory_id = ANY($2::text[])
       ORDER BY doc.created_at, doc.id COLLATE "C"`;

/** The sources of chunk memories in `agentId`'s scope (a memory several documents share: the oldest link). */
export function findChunkSources(sql: SqlExecutor, agentId: string, memoryIds: readonly string[]): ChunkSourceRow[] {
  return runSqliteProgram(sql, findChunkSourcesProgram(agentId, memoryIds));
}

/** {@link findChunkSources} as a program (both dialects; recall's document sources). */
export function* findChunkSourcesProgram(agentId: string, memoryIds: readonly string[]): Program<ChunkSourceRow[]> {
  if (memoryIds.length === 0) return [];
  return yield* all<ChunkSourceRow>(
    perDialect(
      { sql: CHUNK_SOURCES, parameters: [agentId, JSON.stringify(memoryIds)] },
      { sql: CHUNK_SOURCES_POSTGRES, parameters: [agentId, [...memoryIds]] },
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
  sql.run(
    queryBuilder
      .updateTable('documents')
      .set({ source_path: path, ...(title ? { title } : {}), updated_at: now })
      .where('id', '=', id)
      .compile(),
  );
}
