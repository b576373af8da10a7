import type { Logger } from '@memory/core';
import { execute, type PostgresClient } from './connection.js';

/** Whether pgvector is in use, and why not when it is not. */
export interface PostgresVectorSupport {
  readonly available: boolean;
  /** pgvector's version when available. */
  readonly version?: string;
  readonly reason?: string;
}

/**
 * float4 little-endian bytes (the `embeddings.vector` format both dialects store) to `real[]`, in
 * plain SQL: every normal and subnormal float decodes exactly (a power of two times an integer).
 * Vectors are finite by the time they are stored, so NaN and infinities never reach it.
 */
const DECODE_FUNCTION = `CREATE OR REPLACE FUNCTION memory_float4_bytes(b bytea) RETURNS real[]
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(
    (CASE WHEN e = 0 THEN m * 2::float8 ^ -149 ELSE (8388608 + m) * 2::float8 ^ (e - 150) END
      * (1 - 2 * s))::real ORDER BY i), '{}')
  FROM (
    SELECT i, (bits >> 31) AS s, ((bits >> 23) & 255) AS e, (bits & 8388607) AS m
    FROM (
      SELECT i, get_byte(b, 4 * i)::bigint | (get_byte(b, 4 * i + 1)::bigint << 8)
        | (get_byte(b, 4 * i + 2)::bigint << 16) | (get_byte(b, 4 * i + 3)::bigint << 24) AS bits
      FROM generate_series(0, length(b) / 4 - 1) AS i
    ) AS words
  ) AS parts
$$`;

// The pgvector mirror of memory vectors: one row per `embeddings` row of a memory, kept by a trigger
// (so every path that writes `embeddings` keeps it, with no change to the writer) and removed with
// it by the foreign key. The HNSW indexes are per dimension (see createHnswIndex).
const MIRROR = [
  `CREATE TABLE IF NOT EXISTS memory_vectors (
    seq bigint PRIMARY KEY REFERENCES embeddings (seq) ON DELETE CASCADE,
    agent_id text NOT NULL,
    model text NOT NULL,
    dimensions integer NOT NULL,
    source_id text NOT NULL,
    v vector NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS memory_vectors_agent ON memory_vectors (agent_id, model, dimensions)',
  `CREATE OR REPLACE FUNCTION memory_vectors_mirror() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.source_type = 'memory' THEN
      INSERT INTO memory_vectors (seq, agent_id, model, dimensions, source_id, v)
      VALUES (NEW.seq, NEW.agent_id, NEW.model, NEW.dimensions, NEW.source_id, memory_float4_bytes(NEW.vector)::vector)
      ON CONFLICT (seq) DO UPDATE SET agent_id = EXCLUDED.agent_id, model = EXCLUDED.model,
        dimensions = EXCLUDED.dimensions, source_id = EXCLUDED.source_id, v = EXCLUDED.v;
    END IF;
    RETURN NULL;
  END $$`,
];

// Once per database: creating the trigger locks `embeddings` against writes, and the fill reads every
// vector, so neither runs on an open that finds the trigger in place (it has kept the mirror since).
const FIRST_SET_UP = [
  `CREATE TRIGGER embeddings_vector_mirror AFTER INSERT OR UPDATE OF vector, model, agent_id, source_id ON embeddings
    FOR EACH ROW EXECUTE FUNCTION memory_vectors_mirror()`,
  // Vectors stored before the trigger existed (before pgvector was installed) join the mirror.
  `INSERT INTO memory_vectors (seq, agent_id, model, dimensions, source_id, v)
    SELECT e.seq, e.agent_id, e.model, e.dimensions, e.source_id, memory_float4_bytes(e.vector)::vector
    FROM embeddings AS e
    WHERE e.source_type = 'memory' AND NOT EXISTS (SELECT 1 FROM memory_vectors AS v WHERE v.seq = e.seq)`,
];

const MIRROR_LOCK_KEY = 7_215_338_841_205_442n;

/**
 * Sets up the semantic channel's PostgreSQL side at open: pgvector and its mirror when the server
 * has the extension (and `mode` is `auto`), the exact bounded scan otherwise. Never fails the open:
 * a server without pgvector (Debian's own packages have none) is a supported setup.
 */
export async function setUpPostgresVectors(
  client: PostgresClient,
  mode: 'auto' | 'off',
  logger: Logger,
): Promise<PostgresVectorSupport> {
  if (mode === 'off') return { available: false, reason: 'vectorExtension is off' };
  const sql = (text: string, ...parameters: unknown[]) => execute(client, { sql: text, parameters });
  const schema = (await sql("SELECT to_regclass('embeddings')::text AS t")).rows[0] as { t: string | null };
  if (schema.t === null) return { available: false, reason: 'the schema has no embeddings table' };
  const offered = (await sql("SELECT default_version FROM pg_available_extensions WHERE name = 'vector'")).rows[0] as
    | { default_version: string }
    | undefined;
  if (!offered) return { available: false, reason: 'the server does not offer the pgvector extension' };
  await sql('BEGIN');
  try {
    await sql('SELECT pg_advisory_xact_lock($1)', MIRROR_LOCK_KEY.toString());
    await sql('CREATE EXTENSION IF NOT EXISTS vector');
    await sql(DECODE_FUNCTION);
    for (const statement of MIRROR) await sql(statement);
    const trigger = await sql(
      "SELECT 1 FROM pg_trigger WHERE tgname = 'embeddings_vector_mirror' AND tgrelid = 'embeddings'::regclass",
    );
    if (trigger.rows.length === 0) for (const statement of FIRST_SET_UP) await sql(statement);
    const installed = (await sql("SELECT extversion FROM pg_extension WHERE extname = 'vector'")).rows[0] as {
      extversion: string;
    };
    await sql('COMMIT');
    return { available: true, version: installed.extversion };
  } catch (error) {
    await sql('ROLLBACK').catch(() => undefined);
    // Creating an extension needs the right privileges; without them the exact scan answers.
    logger.warn('pgvector could not be set up; vector search will use the bounded scan', {
      reason: error instanceof Error ? error.message : String(error),
    });
    return { available: false, reason: 'pgvector could not be set up (see the log)' };
  }
}

/** pgvector's HNSW indexes cover at most this many dimensions; wider vectors are searched exactly. */
export const HNSW_MAX_DIMENSIONS = 2000;

/** The name of the HNSW index of one dimension. */
export function hnswIndexName(dimensions: number): string {
  return `memory_vectors_hnsw_${dimensions}`;
}

/**
 * Builds the HNSW index (cosine) over the mirror's vectors of one dimension if it is missing, with
 * `CREATE INDEX CONCURRENTLY` (writes go on meanwhile; it runs outside any transaction). Searches of
 * agents above the exact limit use it once it exists and answer exactly until then.
 */
export async function createHnswIndex(client: PostgresClient, dimensions: number): Promise<void> {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > HNSW_MAX_DIMENSIONS)
    throw new RangeError(`an HNSW index covers 1..${HNSW_MAX_DIMENSIONS} dimensions, got ${dimensions}`);
  await execute(client, {
    sql: `CREATE INDEX CONCURRENTLY IF NOT EXISTS ${hnswIndexName(dimensions)} ON memory_vectors
      USING hnsw ((v::vector(${dimensions})) vector_cosine_ops) WHERE dimensions = ${dimensions}`,
    parameters: [],
  });
}
