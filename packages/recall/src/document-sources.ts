import { findChunkSourcesProgram, type Program } from '@memory/store';
import type { RecallDocumentSource, RecallResult } from './types.js';

/** A stored chunk location (`{ page?, pageEnd?, section?, offset }`); anything unreadable is dropped. */
function locationOf(json: string | null): Pick<RecallDocumentSource, 'page' | 'pageEnd' | 'section'> {
  if (json === null) return {};
  try {
    const value = JSON.parse(json) as { page?: unknown; pageEnd?: unknown; section?: unknown };
    return {
      ...(typeof value.page === 'number' ? { page: value.page } : {}),
      ...(typeof value.pageEnd === 'number' ? { pageEnd: value.pageEnd } : {}),
      ...(typeof value.section === 'string' ? { section: value.section } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * Document chunks among the results, each given its document (title, path or URL, media type) and
 * its place in it (page, section): what a host cites as "report.pdf p. 12". Read in the agent's
 * scope; a chunk whose document is gone keeps no `document`.
 */
export function* withDocumentSources(agentId: string, results: RecallResult[]): Program<RecallResult[]> {
  const chunks = results.filter((r) => r.type === 'document_chunk').map((r) => r.id as string);
  if (chunks.length === 0) return results;
  const sources = new Map<string, RecallDocumentSource>();
  for (const row of yield* findChunkSourcesProgram(agentId, chunks)) {
    if (sources.has(row.memory_id)) continue; // the oldest document sharing the chunk
    sources.set(row.memory_id, {
      id: row.document_id,
      title: row.title,
      path: row.source_path,
      url: row.source_url,
      connectorId: row.connector_id,
      mediaType: row.content_type,
      chunkIndex: row.chunk_index,
      ...locationOf(row.location_json),
    });
  }
  return results.map((r) => {
    const document = sources.get(r.id);
    return document ? { ...r, document } : r;
  });
}
