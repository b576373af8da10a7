import type { Selectable } from 'kysely';
import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import type { DocumentStatus, DocumentsTable } from '../schema/documents.js';

export type DocumentRow = Selectable<DocumentsTable>;

export function insertDocument(sql: SqlExecutor, row: DocumentRow): void {
  sql.run(queryBuilder.insertInto('documents').values(row).compile());
}

/** A document in `agentId`'s scope. */
export function findDocument(sql: SqlExecutor, agentId: string, id: string): DocumentRow | undefined {
  return sql.get(
    queryBuilder.selectFrom('documents').selectAll().where('id', '=', id).where('agent_id', '=', agentId).compile(),
  );
}

/**
 * A document's status in `agentId`'s scope, without its content: long ingests check it between
 * batches, and reading a large document's whole row each time would cost as much as the batch.
 */
export function findDocumentStatus(sql: SqlExecutor, agentId: string, id: string): DocumentStatus | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('documents')
      .select('status')
      .where('id', '=', id)
      .where('agent_id', '=', agentId)
      .compile(),
  )?.status;
}

/**
 * Adds one part of a large document's text (see migration 8). Each part is its own short statement,
 * so a 50 MB text never goes to SQLite in one piece; the parts in order are the whole text.
 */
export function insertDocumentPart(sql: SqlExecutor, documentId: string, part: number, text: string): void {
  sql.run(queryBuilder.insertInto('document_content_parts').values({ document_id: documentId, part, text }).compile());
}

/** Removes a document's text parts (before a fetched document's text is stored again). */
export function deleteDocumentParts(sql: SqlExecutor, documentId: string): void {
  sql.run(queryBuilder.deleteFrom('document_content_parts').where('document_id', '=', documentId).compile());
}

/** How many parts a document's text was stored in (0: its text is `raw_content`). */
export function countDocumentParts(sql: SqlExecutor, documentId: string): number {
  const row = sql.get<{ n: number }>(
    queryBuilder
      .selectFrom('document_content_parts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('document_id', '=', documentId)
      .compile(),
  );
  return row?.n ?? 0;
}

/** One part of a document's text, or undefined. */
export function findDocumentPart(sql: SqlExecutor, documentId: string, part: number): string | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('document_content_parts')
      .select('text')
      .where('document_id', '=', documentId)
      .where('part', '=', part)
      .compile(),
  )?.text;
}

/**
 * Moves a document to `status` (with extra columns) unless it was deleted meanwhile. Returns false
 * when it was deleted: the caller stops and writes nothing more.
 */
export function setDocumentStatus(
  sql: SqlExecutor,
  id: string,
  status: DocumentStatus,
  now: number,
  extra: Partial<
    Pick<
      DocumentRow,
      | 'error'
      | 'title'
      | 'content_type'
      | 'content_hash'
      | 'raw_content'
      | 'chunk_count'
      | 'memory_count'
      | 'completed_at'
      | 'metadata_json'
      | 'source_path'
    >
  > = {},
): boolean {
  return (
    sql.run(
      queryBuilder
        .updateTable('documents')
        .set({ status, updated_at: now, ...extra })
        .where('id', '=', id)
        .where('status', '!=', 'deleted')
        .compile(),
    ).changes > 0
  );
}

/** Statuses of a document whose ingest has not finished. */
const IN_PROGRESS: readonly DocumentStatus[] = ['queued', 'extracting', 'chunking', 'embedding', 'indexing'];

/**
 * Marks a document whose ingest is in progress (queued or mid-ingest) as `failed` with `error`; a
 * document that is done, failed or deleted is left alone. Returns whether it was marked.
 */
export function failDocumentInProgress(sql: SqlExecutor, id: string, error: string, now: number): boolean {
  return (
    sql.run(
      queryBuilder
        .updateTable('documents')
        .set({ status: 'failed', error, updated_at: now })
        .where('id', '=', id)
        .where('status', 'in', IN_PROGRESS)
        .compile(),
    ).changes > 0
  );
}

/** Documents of one agent, newest first. */
export function listDocuments(
  sql: SqlExecutor,
  filter: { agentId: string; status?: DocumentStatus | undefined; limit: number },
): DocumentRow[] {
  let query = queryBuilder.selectFrom('documents').selectAll().where('agent_id', '=', filter.agentId);
  if (filter.status) query = query.where('status', '=', filter.status);
  return sql.all(query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit).compile());
}

/** Live memories linked to this document and to no other live document. */
export function exclusiveDocumentMemoryIds(sql: SqlExecutor, documentId: string): string[] {
  return sql
    .all<{ memory_id: string }>(
      raw(
        `SELECT d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id AND m.is_deleted = 0
         WHERE d.document_id = ? AND NOT EXISTS (
           SELECT 1 FROM document_memories o JOIN documents od ON od.id = o.document_id AND od.status != 'deleted'
           WHERE o.memory_id = d.memory_id AND o.document_id != d.document_id)`,
        documentId,
      ),
    )
    .map((r) => r.memory_id);
}
