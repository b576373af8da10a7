import { raw } from '../internal/sql.js';
import { all, type Program, postgresOnly } from '../program/program.js';
import { HNSW_MAX_DIMENSIONS } from './vector-support.js';

/**
 * PostgreSQL's vector upkeep has one task: an HNSW index for a dimension once some agent's live
 * memories with vectors of one embedder key pass `exactMaxVectors` (below that, search compares
 * exactly and needs no index). Returns the dimensions that need one and have none. Reads the
 * maintained `memory_counts` (a few rows per agent and key) and the embedder identities, never the
 * vectors. Only meaningful with pgvector (the index is over its mirror).
 */
export function* postgresVectorIndexesDueProgram(exactMaxVectors: number): Program<number[]> {
  const rows = yield* all<{ dimensions: number }>(
    postgresOnly(
      raw(
        `SELECT DISTINCT i.dimensions FROM (
           SELECT model, agent_id, sum(n) AS live FROM memory_counts
           WHERE kind = 'live' AND model <> '' GROUP BY model, agent_id
         ) AS c JOIN embedder_identities AS i ON i.vector_key = c.model
         WHERE c.live > $1 AND i.dimensions <= $2
           AND to_regclass('memory_vectors_hnsw_' || i.dimensions) IS NULL
         ORDER BY 1`,
        exactMaxVectors,
        HNSW_MAX_DIMENSIONS,
      ),
    ),
  );
  return rows.map((r) => r.dimensions);
}
