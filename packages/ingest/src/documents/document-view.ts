import type { DocumentId } from '@memory/core';
import type { DocumentConversionRow, DocumentRow, DocumentStatus } from '@memory/store';
import type { ChunkLocation } from './chunk-location.js';
import { type DocumentExtraction, metadataOf } from './register-source.js';

/** A document as the public API returns it. */
export interface DocumentView {
  readonly id: DocumentId;
  readonly agentId: string;
  readonly project: string | null;
  readonly sourceType: 'url' | 'text' | 'file';
  readonly sourceUrl: string | null;
  readonly title: string | null;
  readonly contentType: string | null;
  readonly status: DocumentStatus;
  readonly error: string | null;
  readonly chunkCount: number;
  readonly memoryCount: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly completedAt: number | null;
  /** How the text was obtained (conversion lineage), once the document was extracted. */
  readonly extraction: DocumentExtraction | null;
  /** A file's path (inside its connector's root, or as given to `add`). */
  readonly sourcePath: string | null;
  /** The connector the document came from, if any. */
  readonly connectorId: string | null;
  /** Its conversion: 1, and one more each time a changed source replaced the chunks. */
  readonly conversion: number;
}

/** An earlier conversion of a document, replaced when its source changed. */
export interface DocumentConversionView {
  readonly conversion: number;
  readonly contentType: string | null;
  readonly byteHash: string | null;
  readonly extraction: DocumentExtraction | null;
  readonly chunkCount: number;
  readonly memoryCount: number;
  readonly completedAt: number | null;
  readonly replacedAt: number;
}

export const toView = (row: DocumentRow): DocumentView => ({
  id: row.id as DocumentId,
  agentId: row.agent_id,
  project: row.project,
  sourceType: row.source_type,
  sourceUrl: row.source_url,
  title: row.title,
  contentType: row.content_type,
  status: row.status,
  error: row.error,
  chunkCount: row.chunk_count,
  memoryCount: row.memory_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  completedAt: row.completed_at,
  extraction: metadataOf(row).extraction ?? null,
  sourcePath: row.source_path,
  connectorId: row.connector_id,
  conversion: row.conversion,
});

/** A chunk's location as stored with its link (`null` when it names neither page nor section). */
export const locationJson = (location: ChunkLocation): string | null =>
  location.page === undefined && location.section === undefined ? null : JSON.stringify(location);

function parseExtraction(json: string): DocumentExtraction | null {
  try {
    const value = JSON.parse(json) as Partial<DocumentExtraction>;
    return typeof value.byteHash === 'string' ? (value as DocumentExtraction) : null;
  } catch {
    return null;
  }
}

/** An earlier conversion's row as the API returns it. */
export const toConversionView = (row: DocumentConversionRow): DocumentConversionView => ({
  conversion: row.conversion,
  contentType: row.content_type,
  byteHash: row.content_hash,
  extraction: parseExtraction(row.extraction_json),
  chunkCount: row.chunk_count,
  memoryCount: row.memory_count,
  completedAt: row.completed_at,
  replacedAt: row.replaced_at,
});
