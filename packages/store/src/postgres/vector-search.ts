import { raw } from '../internal/sql.js';
import { all, get, type Program, postgresOnly } from '../program/program.js';
import { HNSW_MAX_DIMENSIONS, hnswIndexName } from './vector-support.js';

/** What a PostgreSQL vector search found, and how much of the agent's vectors it compared. */
export interface PostgresVectorSearch {
  /** Nearest memories first, with their cosine similarity to the query; ties in storage order. */
  readonly hits: Array<{ memoryId: string; cosine: number }>;
  /**
   * `exact`: every vector of the agent was compared; `approximate`: an HNSW index chose the
   * candidates (their similarities are exact); `recent-window`: without pgvector, only the agent's
   * newest `scanWindow` vectors were compared.
   */
  readonly completeness: 'exact' | 'approximate' | 'recent-window';
  readonly layout: 'exact' | 'hnsw' | 'scan';
  /** The agent's vectors of this model. */
  readonly vectors: number;
  /** Vectors compared with the query (exact, scan) or read from the index (hnsw: the candidate pool). */
  readonly searched: number;
}

export interface PostgresVectorQuery {
  readonly agentId: string;
  readonly model: string;
  readonly query: Float32Array;
  readonly k: number;
  /** Whether pgvector is in use (`PostgresStore.vector.available`). */
  readonly pgvector: boolean;
  /** Agents with at most this many vectors are searched exactly. @default 20000 */
  readonly exactMaxVectors?: number;
  /** Candidates read from the HNSW index (its `ef_search`, at most 1000). @default max(100, 5k) */
  readonly candidatePool?: number;
  /** Without pgvector: how many of the agent's newest vectors are compared. @default 10000 */
  readonly scanWindow?: number;
}

const SCAN_PAGE = 2000;

/** pgvector's text form of a vector. */
function literal(vector: Float32Array): string {
  return `[${Array.from(vector).join(',')}]`;
}

/**
 * The agent's nearest memory vectors on PostgreSQL: exact in the server while the agent is small
 * (or no HNSW index exists yet for this dimension), through the HNSW index (iterative, filtered by
 * agent) above that, and without pgvector as an exact scan of the newest vectors in pages. One
 * agent's results never depend on another agent's vectors except through the shared HNSW graph's
 * candidate choice, which the exact-limit keeps away from small agents.
 */
export function* searchPostgresVectors(input: PostgresVectorQuery): Program<PostgresVectorSearch> {
  const { agentId, model, query, k } = input;
  const dimensions = query.length;
  if (!input.pgvector) return yield* scanVectors(input);
  const counted = yield* get<{ n: number }>(
    postgresOnly(
      raw(
        'SELECT count(*) AS n FROM memory_vectors WHERE agent_id = $1 AND model = $2 AND dimensions = $3',
        agentId,
        model,
        dimensions,
      ),
    ),
  );
  const vectors = counted?.n ?? 0;
  if (vectors === 0 || k <= 0) return { hits: [], completeness: 'exact', layout: 'exact', vectors, searched: 0 };
  const q = literal(query);
  const exactMax = input.exactMaxVectors ?? 20_000;
  const indexed =
    vectors > exactMax && dimensions <= HNSW_MAX_DIMENSIONS
      ? (yield* get<{ t: string | null }>(
          postgresOnly(raw('SELECT to_regclass($1)::text AS t', hnswIndexName(dimensions))),
        ))?.t != null
      : false;
  if (!indexed) {
    // Ordering by `v <=> q` (no dimension cast) cannot use the per-dimension HNSW expression
    // index, so this is always an exact comparison of the agent's rows.
    const rows = yield* all<{ memoryId: string; distance: number }>(
      postgresOnly(
        raw(
          `SELECT source_id AS "memoryId", v <=> $4::vector AS distance FROM memory_vectors
           WHERE agent_id = $1 AND model = $2 AND dimensions = $3
           ORDER BY v <=> $4::vector, seq LIMIT $5`,
          agentId,
          model,
          dimensions,
          q,
          k,
        ),
      ),
    );
    return { hits: rows.map(toHit), completeness: 'exact', layout: 'exact', vectors, searched: vectors };
  }
  const pool = Math.min(1000, Math.max(input.candidatePool ?? Math.max(100, 5 * k), k));
  yield* get(
    postgresOnly(
      raw(
        "SELECT set_config('hnsw.ef_search', $1, true), set_config('hnsw.iterative_scan', 'relaxed_order', true)",
        String(pool),
      ),
    ),
  );
  const rows = yield* all<{ memoryId: string; distance: number; seq: number }>(
    postgresOnly(
      raw(
        `SELECT source_id AS "memoryId", v <=> $4::vector AS distance, seq FROM memory_vectors
         WHERE agent_id = $1 AND model = $2 AND dimensions = $3
         ORDER BY v::vector(${dimensions}) <=> $4::vector(${dimensions}) LIMIT $5`,
        agentId,
        model,
        dimensions,
        q,
        pool,
      ),
    ),
  );
  // Relaxed order: the index returns candidates roughly by distance; their distances are exact.
  rows.sort((a, b) => a.distance - b.distance || a.seq - b.seq);
  return {
    hits: rows.slice(0, k).map(toHit),
    completeness: 'approximate',
    layout: 'hnsw',
    vectors,
    searched: rows.length,
  };
}

function toHit(row: { memoryId: string; distance: number }): { memoryId: string; cosine: number } {
  return { memoryId: row.memoryId, cosine: 1 - row.distance };
}

/** Without pgvector: the agent's newest vectors of the model, compared in pages in JavaScript. */
function* scanVectors(input: PostgresVectorQuery): Program<PostgresVectorSearch> {
  const { agentId, model, query, k } = input;
  const window = input.scanWindow ?? 10_000;
  const counted = yield* get<{ n: number }>(
    postgresOnly(
      raw(
        `SELECT count(*) AS n FROM embeddings
         WHERE agent_id = $1 AND model = $2 AND source_type = 'memory' AND dimensions = $3`,
        agentId,
        model,
        query.length,
      ),
    ),
  );
  const vectors = counted?.n ?? 0;
  let squares = 0;
  for (const x of query) squares += x * x;
  const queryNorm = Math.sqrt(squares);
  const best: Array<{ memoryId: string; cosine: number; seq: number }> = [];
  let searched = 0;
  let before = Number.MAX_SAFE_INTEGER;
  while (searched < window && k > 0 && queryNorm > 0) {
    const page = yield* all<{ seq: number; source_id: string; vector: Uint8Array }>(
      postgresOnly(
        raw(
          `SELECT seq, source_id, vector FROM embeddings
           WHERE agent_id = $1 AND model = $2 AND source_type = 'memory' AND dimensions = $3 AND seq < $4
           ORDER BY seq DESC LIMIT $5`,
          agentId,
          model,
          query.length,
          before,
          Math.min(SCAN_PAGE, window - searched),
        ),
      ),
    );
    for (const row of page) {
      const cosine = cosineOf(query, queryNorm, row.vector);
      if (cosine !== undefined) keepBest(best, { memoryId: row.source_id, cosine, seq: row.seq }, k);
    }
    searched += page.length;
    const last = page.at(-1);
    if (!last || page.length < SCAN_PAGE) break;
    before = last.seq;
  }
  return {
    hits: best.map(({ memoryId, cosine }) => ({ memoryId, cosine })),
    completeness: searched >= vectors ? 'exact' : 'recent-window',
    layout: 'scan',
    vectors,
    searched,
  };
}

function cosineOf(query: Float32Array, queryNorm: number, bytes: Uint8Array): number | undefined {
  if (bytes.byteLength !== query.length * 4) return undefined;
  // A copy (Buffer#slice would share the driver's pool): it need not be 4-byte aligned.
  const vector = new Float32Array(new Uint8Array(bytes).buffer);
  let dot = 0;
  let norm = 0;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i] as number;
    dot += x * (query[i] as number);
    norm += x * x;
  }
  return norm === 0 ? undefined : dot / (queryNorm * Math.sqrt(norm));
}

/** Keeps the `k` most similar, most similar first; older rows (smaller seq) first among equals. */
function keepBest(
  best: Array<{ memoryId: string; cosine: number; seq: number }>,
  hit: { memoryId: string; cosine: number; seq: number },
  k: number,
): void {
  const worse = (a: typeof hit, b: typeof hit) => a.cosine < b.cosine || (a.cosine === b.cosine && a.seq > b.seq);
  if (best.length === k && !worse(best[k - 1] as typeof hit, hit)) return;
  let i = best.length;
  while (i > 0 && worse(best[i - 1] as typeof hit, hit)) i--;
  best.splice(i, 0, hit);
  if (best.length > k) best.pop();
}
