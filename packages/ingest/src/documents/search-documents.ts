import { agentIdSchema, labelSchema, type MemoryConfig, parseInput } from '@memory/core';
import { bm25Score, ftsTokens, type PortableStore, queryTerms, searchDocumentChunksProgram } from '@memory/store';
import { z } from 'zod';
import { type ChunkLocation, parseLocation } from './chunk-location.js';

function searchSchema(config: MemoryConfig) {
  return z.strictObject({
    agentId: agentIdSchema,
    query: z.string().min(1).max(config.limits.maxQueryChars),
    /** Only documents of this connector. */
    connectorId: labelSchema(128, 'connectorId').optional(),
    /** Only documents of this media type (`application/pdf`). */
    mediaType: z.string().min(1).max(256).optional(),
    /** Only documents whose path (or URL) starts with this (`reports/`). */
    path: z.string().min(1).max(4096).optional(),
    /** @default 10 */
    limit: z.number().int().min(1).max(config.recall.maxLimit).optional(),
  });
}

export type SearchDocumentsInput = z.input<ReturnType<typeof searchSchema>>;

/** One chunk a workspace search found, with its document and its place in it. */
export interface DocumentSearchHit {
  readonly memoryId: string;
  readonly documentId: string;
  readonly content: string;
  /** BM25 over the agent's own statistics: higher is better. */
  readonly score: number;
  readonly chunkIndex: number;
  /** Page (PDF) and nearest heading of the chunk, when its extractor marked them. */
  readonly location: ChunkLocation | null;
  readonly document: DocumentCitation;
}

/** What a host needs to cite a chunk's source: "report.pdf p. 12". */
export interface DocumentCitation {
  readonly id: string;
  readonly title: string | null;
  readonly path: string | null;
  readonly url: string | null;
  readonly connectorId: string | null;
  readonly mediaType: string | null;
}

/**
 * Workspace search: lexical (scoped BM25) search over one agent's document chunks, narrowed by
 * connector, media type or path prefix, each hit with its document and location. The same ranking
 * on both dialects: the memories' scoped text index, from the agent's own statistics.
 */
export function createDocumentSearch(deps: { store: PortableStore; config: MemoryConfig }) {
  const { store, config } = deps;
  const schema = searchSchema(config);
  return async function search(input: unknown): Promise<DocumentSearchHit[]> {
    const request = parseInput(schema, input, 'documents.search');
    const terms = queryTerms(ftsTokens(request.query), config.recall.maxQueryTokens);
    const params = {
      agentId: request.agentId,
      terms,
      filters: { connectorId: request.connectorId, mediaType: request.mediaType, path: request.path },
      limit: request.limit ?? 10,
    };
    const hits = await store.db.read(() => searchDocumentChunksProgram(params));
    return hits.map((hit) => ({
      memoryId: hit.memory_id,
      documentId: hit.document_id,
      content: hit.content,
      score: bm25Score(hit.bm25),
      chunkIndex: hit.chunk_index,
      location: parseLocation(hit.location_json),
      document: {
        id: hit.document_id,
        title: hit.title,
        path: hit.source_path,
        url: hit.source_url,
        connectorId: hit.connector_id,
        mediaType: hit.content_type,
      },
    }));
  };
}
