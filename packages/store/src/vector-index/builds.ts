import { raw, type SqlExecutor } from '../internal/sql.js';
import { type EstimateQueries, emptyTopState } from './recall-estimate.js';

/** A partition rebuild in progress. */
export interface VectorBuild {
  readonly indexId: number;
  readonly agentId: string;
  /** The generation being written (phase `assign`) or the one being removed (phase `cleanup`). */
  readonly generation: number;
  readonly phase: 'assign' | 'cleanup';
  readonly targetLayout: 'exact' | 'ivf';
  /** The largest seq handled so far. */
  readonly cursor: number;
}

const SELECT_BUILD = `SELECT index_id AS indexId, agent_id AS agentId, generation, phase,
  target_layout AS targetLayout, cursor FROM vector_builds`;

/** The build in progress for a partition, if any. */
export function findBuild(sql: SqlExecutor, indexId: number, agentId: string): VectorBuild | undefined {
  return sql.get<VectorBuild>(raw(`${SELECT_BUILD} WHERE index_id = ? AND agent_id = ?`, indexId, agentId));
}

/** Every build in progress, oldest first. */
export function listBuilds(sql: SqlExecutor): VectorBuild[] {
  return sql.all<VectorBuild>(raw(`${SELECT_BUILD} ORDER BY started_at, index_id, agent_id`));
}

/** Records a new build (phase `assign`, cursor 0) with its recall-estimate queries. */
export function insertBuild(
  sql: SqlExecutor,
  build: { indexId: number; agentId: string; generation: number; targetLayout: 'exact' | 'ivf' },
  queries: EstimateQueries | undefined,
  now: number,
): void {
  sql.run(
    raw(
      `INSERT INTO vector_builds (index_id, agent_id, generation, phase, target_layout, cursor, queries, estimate, started_at, updated_at)
       VALUES (?, ?, ?, 'assign', ?, 0, ?, ?, ?, ?)`,
      build.indexId,
      build.agentId,
      build.generation,
      build.targetLayout,
      queries ? packQueries(queries) : null,
      queries ? packFloats(emptyTopState(queries.kinds.length)) : null,
      now,
      now,
    ),
  );
}

/** Moves a build's cursor (and its estimate state), or to its cleanup phase. */
export function updateBuild(
  sql: SqlExecutor,
  build: { indexId: number; agentId: string },
  change: { cursor: number; phase?: 'cleanup'; generation?: number; estimate?: Float64Array },
  now: number,
): void {
  sql.run(
    raw(
      `UPDATE vector_builds SET cursor = ?, phase = coalesce(?, phase), generation = coalesce(?, generation),
         estimate = coalesce(?, estimate), updated_at = ?
       WHERE index_id = ? AND agent_id = ?`,
      change.cursor,
      change.phase ?? null,
      change.generation ?? null,
      change.estimate ? packFloats(change.estimate) : null,
      now,
      build.indexId,
      build.agentId,
    ),
  );
}

/** Removes a finished (or abandoned) build. */
export function deleteBuild(sql: SqlExecutor, build: { indexId: number; agentId: string }): void {
  sql.run(raw('DELETE FROM vector_builds WHERE index_id = ? AND agent_id = ?', build.indexId, build.agentId));
}

/** A build's recall-estimate queries and running state; undefined for a build that estimates nothing. */
export function buildEstimate(
  sql: SqlExecutor,
  build: { indexId: number; agentId: string },
): { queries: EstimateQueries; state: Float64Array } | undefined {
  const row = sql.get<{ queries: Buffer | null; estimate: Buffer | null }>(
    raw(
      'SELECT queries, estimate FROM vector_builds WHERE index_id = ? AND agent_id = ?',
      build.indexId,
      build.agentId,
    ),
  );
  if (!row?.queries || !row.estimate) return undefined;
  return { queries: unpackQueries(row.queries), state: unpackFloats(row.estimate) };
}

function packFloats(values: Float64Array): Buffer {
  return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
}

function unpackFloats(buffer: Buffer): Float64Array {
  const out = new Float64Array(buffer.byteLength >>> 3);
  new Uint8Array(out.buffer).set(buffer.subarray(0, out.length * 8));
  return out;
}

/** Queries as float64: count, dimensions, kinds, excluded seqs, vectors. */
function packQueries(q: EstimateQueries): Buffer {
  const count = q.kinds.length;
  const out = new Float64Array(2 + 2 * count + q.vectors.length);
  out[0] = count;
  out[1] = q.dimensions;
  out.set(q.kinds, 2);
  out.set(q.exclude, 2 + count);
  out.set(q.vectors, 2 + 2 * count);
  return packFloats(out);
}

function unpackQueries(buffer: Buffer): EstimateQueries {
  const all = unpackFloats(buffer);
  const count = all[0] as number;
  const dims = all[1] as number;
  return {
    dimensions: dims,
    kinds: Uint8Array.from(all.subarray(2, 2 + count)),
    exclude: all.slice(2 + count, 2 + 2 * count),
    vectors: Float32Array.from(all.subarray(2 + 2 * count, 2 + 2 * count + count * dims)),
  };
}
