import type { QueryTerms } from '../fts-query.js';
import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ChunkSourceRow } from './document-lineage.js';
import { firstDepth } from './lexical-search.js';
import { rankScopedTextProgram } from './scoped-text-search.js';

/** What a workspace search may narrow to. */
export interface DocumentSearchFilters {
  readonly connectorId?: string | undefined;
  /** Exact media type (`application/pdf`). */
  readonly mediaType?: string | undefined;
  /** A path prefix inside the connector's root (`reports/` or `reports/q3.pdf`). */
  readonly path?: string | undefined;
}

export interface DocumentChunkHit extends ChunkSourceRow {
  readonly content: string;
  readonly seq: number;
  /** Minus the scoped BM25 score: lower is better. */
  readonly bm25: number;
}

// One row per ranked memory: its current link to a live document that passes the filters (a chunk
// several documents share is reported once, from the oldest of them).
const CHUNKS_FOR_ROWS = `
  SELECT m.id AS memory_id, m.content, m.seq, top.value ->> '$[1]' AS bm25,
         d.document_id, doc.title, doc.source_url, doc.source_path, doc.connector_id, doc.content_type,
         d.chunk_index, d.location_json
  FROM json_each(?) AS top
  CROSS JOIN memories AS m ON m.seq = top.value ->> '$[0]'
  JOIN document_memories AS d ON d.memory_id = m.id
  JOIN documents AS doc ON doc.id = d.document_id AND doc.agent_id = m.agent_id AND d.conversion = doc.conversion
  WHERE m.agent_id = ? AND m.is_deleted = 0 AND m.type = 'document_chunk' AND doc.status != 'deleted'
    AND (? IS NULL OR doc.connector_id = ?)
    AND (? IS NULL OR doc.content_type = ?)
    AND (? IS NULL OR substr(coalesce(doc.source_path, doc.source_url, ''), 1, length(?)) = ?)
    AND doc.id = (SELECT d2.document_id FROM document_memories d2
                  JOIN documents doc2 ON doc2.id = d2.document_id AND doc2.status != 'deleted'
                    AND d2.conversion = doc2.conversion
                    AND (? IS NULL OR doc2.connector_id = ?)
                    AND (? IS NULL OR doc2.content_type = ?)
                    AND (? IS NULL OR substr(coalesce(doc2.source_path, doc2.source_url, ''), 1, length(?)) = ?)
                  WHERE d2.memory_id = m.id ORDER BY doc2.created_at, doc2.id LIMIT 1)`;

// The same on PostgreSQL: the ranking as two arrays (row seq, minus score), filters bound once each.
const CHUNKS_FOR_ROWS_POSTGRES = `
  SELECT m.id AS memory_id, m.content, m.seq, top.bm25,
         d.document_id, doc.title, doc.source_url, doc.source_path, doc.connector_id, doc.content_type,
         d.chunk_index, d.location_json
  FROM unnest($1::bigint[], $2::double precision[]) AS top (seq, bm25)
  JOIN memories AS m ON m.seq = top.seq
  JOIN document_memories AS d ON d.memory_id = m.id
  JOIN documents AS doc ON doc.id = d.document_id AND doc.agent_id = m.agent_id AND d.conversion = doc.conversion
  WHERE m.agent_id = $3 AND m.is_deleted = 0 AND m.type = 'document_chunk' AND doc.status != 'deleted'
    AND ($4::text IS NULL OR doc.connector_id = $4)
    AND ($5::text IS NULL OR doc.content_type = $5)
    AND ($6::text IS NULL OR starts_with(coalesce(doc.source_path, doc.source_url, ''), $6))
    AND doc.id = (SELECT d2.document_id FROM document_memories d2
                  JOIN documents doc2 ON doc2.id = d2.document_id AND doc2.status != 'deleted'
                    AND d2.conversion = doc2.conversion
                    AND ($4::text IS NULL OR doc2.connector_id = $4)
                    AND ($5::text IS NULL OR doc2.content_type = $5)
                    AND ($6::text IS NULL OR starts_with(coalesce(doc2.source_path, doc2.source_url, ''), $6))
                  WHERE d2.memory_id = m.id ORDER BY doc2.created_at, doc2.id LIMIT 1)`;

export interface DocumentSearchParams {
  readonly agentId: string;
  readonly terms: QueryTerms;
  readonly filters: DocumentSearchFilters;
  readonly limit: number;
}

/**
 * BM25 search over one agent's document chunks (the memories' scoped text index: scores and order
 * come from that agent's statistics alone), with each hit's document and place in it. Filters by
 * connector, media type and path prefix; reads deeper rankings while filters leave fewer than `limit`.
 */
export function searchDocumentChunks(sql: SqlExecutor, params: DocumentSearchParams): DocumentChunkHit[] {
  return runSqliteProgram(sql, searchDocumentChunksProgram(params));
}

/**
 * {@link searchDocumentChunks} as a program. Both dialects rank with the same scoped text index
 * (`text_postings`, written by the memory writer), so the same chunks get the same scores.
 */
export function* searchDocumentChunksProgram(params: DocumentSearchParams): Program<DocumentChunkHit[]> {
  const f = params.filters;
  const c = f.connectorId ?? null;
  const t = f.mediaType ?? null;
  const p = f.path ?? null;
  const filters = [c, c, t, t, p, p, p];
  for (let depth = firstDepth(params.limit); ; depth *= 8) {
    const ranking = yield* rankScopedTextProgram('memory', params.agentId, params.terms.tokens, { depth });
    const pairs = JSON.stringify(ranking.rows.map((r) => [r.row, -r.score]));
    const rows = yield* all<DocumentChunkHit>(
      perDialect(
        raw(CHUNKS_FOR_ROWS, pairs, params.agentId, ...filters, ...filters),
        raw(
          CHUNKS_FOR_ROWS_POSTGRES,
          ranking.rows.map((r) => r.row),
          ranking.rows.map((r) => -r.score),
          params.agentId,
          c,
          t,
          p,
        ),
      ),
    );
    if (rows.length >= params.limit || ranking.complete)
      return rows.sort((a, b) => a.bm25 - b.bm25 || a.seq - b.seq).slice(0, params.limit);
  }
}
