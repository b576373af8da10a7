import type { Selectable } from 'kysely';
import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { DocumentStatus, DocumentsTable } from '../schema/documents.js';

export type DocumentRow = Selectable<DocumentsTable>;

// Each function has a program form (`...Program`, issue 18) that runs on either dialect; the
// synchronous function runs it on a SQLite executor.

export function insertDocument(sql: SqlExecutor, row: DocumentRow): void {
  runSqliteProgram(sql, insertDocumentProgram(row));
}

/** {@link insertDocument} as a program. */
export function* insertDocumentProgram(row: DocumentRow): Program<void> {
  yield* run(queryBuilder.insertInto('documents').values(row));
}

/** A document in `agentId`'s scope. */
export function findDocument(sql: SqlExecutor, agentId: string, id: string): DocumentRow | undefined {
  return runSqliteProgram(sql, findDocumentProgram(agentId, id));
}

/** {@link findDocument} as a program. */
export function* findDocumentProgram(agentId: string, id: string): Program<DocumentRow | undefined> {
  return yield* get<DocumentRow>(
    queryBuilder.selectFrom('documents').selectAll().where('id', '=', id).where('agent_id', '=', agentId),
  );
}

/**
 * A document's status in `agentId`'s scope, without its content: long ingests check it between
 * batches, and reading a large document's whole row each time would cost as much as the batch.
 */
export function findDocumentStatus(sql: SqlExecutor, agentId: string, id: string): DocumentStatus | undefined {
  return runSqliteProgram(sql, findDocumentStatusProgram(agentId, id));
}

/** {@link findDocumentStatus} as a program. */
export function* findDocumentStatusProgram(agentId: string, id: string): Program<DocumentStatus | undefined> {
  const row = yield* get<{ status: DocumentStatus }>(
    queryBuilder.selectFrom('documents').select('status').where('id', '=', id).where('agent_id', '=', agentId),
  );
  return row?.status;
}

/**
 * Adds one part of a large document's text (see migration 8). Each part is its own short statement,
 * so a 50 MB text never goes to SQLite in one piece; the parts in order are the whole text.
 */
export function insertDocumentPart(sql: SqlExecutor, documentId: string, part: number, text: string): void {
  runSqliteProgram(sql, insertDocumentPartProgram(documentId, part, text));
}

/** {@link insertDocumentPart} as a program. */
export function* insertDocumentPartProgram(documentId: string, part: number, text: string): Program<void> {
  yield* run(queryBuilder.insertInto('document_content_parts').values({ document_id: documentId, part, text }));
}

/** Removes a document's text parts (before a fetched document's text is stored again). */
export function deleteDocumentParts(sql: SqlExecutor, documentId: string): void {
  runSqliteProgram(sql, deleteDocumentPartsProgram(documentId));
}

/** {@link deleteDocumentParts} as a program. */
export function* deleteDocumentPartsProgram(documentId: string): Program<void> {
  yield* run(queryBuilder.deleteFrom('document_content_parts').where('document_id', '=', documentId));
}

/** How many parts a document's text was stored in (0: its text is `raw_content`). */
export function countDocumentParts(sql: SqlExecutor, documentId: string): number {
  return runSqliteProgram(sql, countDocumentPartsProgram(documentId));
}

/** {@link countDocumentParts} as a program. */
export function* countDocumentPartsProgram(documentId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    queryBuilder
      .selectFrom('document_content_parts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('document_id', '=', documentId),
  );
  return Number(row?.n ?? 0);
}

/** One part of a document's text, or undefined. */
export function findDocumentPart(sql: SqlExecutor, documentId: string, part: number): string | undefined {
  return runSqliteProgram(sql, findDocumentPartProgram(documentId, part));
}

/** {@link findDocumentPart} as a program. */
export function* findDocumentPartProgram(documentId: string, part: number): Program<string | undefined> {
  const row = yield* get<{ text: string }>(
    queryBuilder
      .selectFrom('document_content_parts')
      .select('text')
      .where('document_id', '=', documentId)
      .where('part', '=', part),
  );
  return row?.text;
}

/** The columns a status change may set besides the status. */
export type DocumentStatusExtra = Partial<
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
>;

/**
 * Moves a document to `status` (with extra columns) unless it was deleted meanwhile. Returns false
 * when it was deleted: the caller stops and writes nothing more.
 */
export function setDocumentStatus(
  sql: SqlExecutor,
  id: string,
  status: DocumentStatus,
  now: number,
  extra: DocumentStatusExtra = {},
): boolean {
  return runSqliteProgram(sql, setDocumentStatusProgram(id, status, now, extra));
}

/** {@link setDocumentStatus} as a program. */
export function* setDocumentStatusProgram(
  id: string,
  status: DocumentStatus,
  now: number,
  extra: DocumentStatusExtra = {},
): Program<boolean> {
  const result = yield* run(
    queryBuilder
      .updateTable('documents')
      .set({ status, updated_at: now, ...extra })
      .where('id', '=', id)
      .where('status', '!=', 'deleted'),
  );
  return result.changes > 0;
}

/** Statuses of a document whose ingest has not finished. */
const IN_PROGRESS: readonly DocumentStatus[] = ['queued', 'extracting', 'chunking', 'embedding', 'indexing'];

/**
 * Marks a document whose ingest is in progress (queued or mid-ingest) as `failed` with `error`; a
 * document that is done, failed or deleted is left alone. Returns whether it was marked.
 */
export function failDocumentInProgress(sql: SqlExecutor, id: string, error: string, now: number): boolean {
  return runSqliteProgram(sql, failDocumentInProgressProgram(id, error, now));
}

/** {@link failDocumentInProgress} as a program. */
export function* failDocumentInProgressProgram(id: string, error: string, now: number): Program<boolean> {
  const result = yield* run(
    queryBuilder
      .updateTable('documents')
      .set({ status: 'failed', error, updated_at: now })
      .where('id', '=', id)
      .where('status', 'in', IN_PROGRESS),
  );
  return result.changes > 0;
}

export interface DocumentListFilter {
  readonly agentId: string;
  readonly status?: DocumentStatus | undefined;
  readonly limit: number;
}

/** Documents of one agent, newest first. */
export function listDocuments(sql: SqlExecutor, filter: DocumentListFilter): DocumentRow[] {
  return runSqliteProgram(sql, listDocumentsProgram(filter));
}

/** {@link listDocuments} as a program. */
export function* listDocumentsProgram(filter: DocumentListFilter): Program<DocumentRow[]> {
  let query = queryBuilder.selectFrom('documents').selectAll().where('agent_id', '=', filter.agentId);
  if (filter.status) query = query.where('status', '=', filter.status);
  return yield* all<DocumentRow>(query.orderBy('created_at', 'desc').orderBy('id').limit(filter.limit));
}

const EXCLUSIVE_MEMORIES = `SELECT d.memory_id FROM document_memories d JOIN memories m ON m.id = d.memory_id AND m.is_deleted = 0
  WHERE d.document_id = ? AND NOT EXISTS (
    SELECT 1 FROM document_memories o JOIN documents od ON od.id = o.document_id AND od.status != 'deleted'
    WHERE o.memory_id = d.memory_id AND o.document_id != d.document_id)
  ORDER BY d.memory_id`;

/** Live memories linked to this document and to no other live document. */
export function exclusiveDocumentMemoryIds(sql: SqlExecutor, documentId: string): string[] {
  return runSqliteProgram(sql, exclusiveDocumentMemoryIdsProgram(documentId));
}

/** {@link exclusiveDocumentMemoryIds} as a program. */
export function* exclusiveDocumentMemoryIdsProgram(documentId: string): Program<string[]> {
  const rows = yield* all<{ memory_id: string }>(portable(EXCLUSIVE_MEMORIES, documentId));
  return rows.map((r) => r.memory_id);
}
