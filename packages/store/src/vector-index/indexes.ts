import { raw, type SqlExecutor } from '../internal/sql.js';
import { CHUNK_SIZE } from './cells.js';

/** A vec0 table holding one embedding model's vectors, and whether it holds all of them yet. */
export interface VectorIndex {
  readonly id: number;
  readonly model: string;
  readonly dimensions: number;
  readonly tableName: string;
  /** `filling`: vectors stored before the index existed (seq ≤ `fillUntil`) are still being copied in. */
  readonly status: 'filling' | 'ready';
  readonly fillCursor: number;
  readonly fillUntil: number;
}

/** The bit mirror earlier versions kept (sign bits per agent); it answers while a new index fills. */
export const LEGACY_BIT_TABLE = 'vec_memory_bits';
/** The float mirror before that; dropped on sight. */
const RETIRED_FLOAT_TABLE = 'vec_embeddings';

const SELECT_INDEX = `SELECT id, model, dimensions, table_name AS tableName, status,
  fill_cursor AS fillCursor, fill_until AS fillUntil FROM vector_indexes`;

/**
 * Per connection, the `ready` indexes read (a write looked its index up once per transaction: a
 * statement of ~15 µs in a single remember). Only `ready` rows are kept: no code deletes an index
 * or makes a ready one fill again, so a committed ready row stays as it is, whatever any connection
 * commits later, and a `filling` one is read until it is ready. A row read inside the transaction
 * that created it or made it ready may yet roll back (the transaction, or a savepoint of it): such
 * a transaction marks `changedIn` with the connection's outer write count, and rows read while the
 * count is still that are not kept (the next store write moves it; see `ConnectionState`).
 */
interface ReadyIndexes {
  readonly rows: Map<string, VectorIndex>;
  changedIn: number;
}
const readyIndexes = new WeakMap<object, ReadyIndexes>();

function readyIndexesOf(sql: SqlExecutor): ReadyIndexes | undefined {
  // An executor-like object without the connection state (a test double) has no cache.
  const connection = (sql as Partial<SqlExecutor>).connection;
  if (!connection) return undefined;
  let cache = readyIndexes.get(connection);
  if (!cache) {
    cache = { rows: new Map(), changedIn: -1 };
    readyIndexes.set(connection, cache);
  }
  return cache;
}

/** Called where this connection creates an index or makes one ready (see {@link ReadyIndexes}). */
function indexesChanged(sql: SqlExecutor): void {
  const cache = readyIndexesOf(sql);
  if (!cache) return;
  cache.rows.clear();
  cache.changedIn = sql.connection.outerWrites;
}

/** The index for a model and dimension count, if one was created. */
export function findVectorIndex(sql: SqlExecutor, model: string, dimensions: number): VectorIndex | undefined {
  const cache = readyIndexesOf(sql);
  const key = `${model}\u0000${dimensions}`;
  const kept = cache?.rows.get(key);
  if (kept) return kept;
  const index = sql.get<VectorIndex>(raw(`${SELECT_INDEX} WHERE model = ? AND dimensions = ?`, model, dimensions));
  if (cache && index?.status === 'ready' && cache.changedIn !== sql.connection.outerWrites) cache.rows.set(key, index);
  return index;
}

/** Every vector index, oldest first. */
export function listVectorIndexes(sql: SqlExecutor): VectorIndex[] {
  return sql.all<VectorIndex>(raw(`${SELECT_INDEX} ORDER BY id`));
}

/**
 * The index for a model, created when missing (call inside a write transaction; returns undefined
 * without sqlite-vec). Vectors of this model stored before it existed are copied in by the
 * background fill (`filling` until then); vectors written from now on go in directly. A legacy
 * mirror of another model, and the retired float mirror, are dropped here.
 */
export function ensureVectorIndex(
  sql: SqlExecutor,
  vectorAvailable: boolean,
  model: string,
  dimensions: number,
  now: number,
): VectorIndex | undefined {
  if (!vectorAvailable) return undefined;
  const existing = findVectorIndex(sql, model, dimensions);
  if (existing) return existing;
  indexesChanged(sql);
  sql.run(raw(`DROP TABLE IF EXISTS ${RETIRED_FLOAT_TABLE}`));
  sql.run(raw('DELETE FROM vector_index_state WHERE name = ?', RETIRED_FLOAT_TABLE));
  const legacy = sql.get<{ model: string; dimensions: number }>(
    raw('SELECT model, dimensions FROM vector_index_state WHERE name = ?', LEGACY_BIT_TABLE),
  );
  if (legacy && (legacy.model !== model || legacy.dimensions !== dimensions)) dropLegacyMirror(sql);
  const fillUntil =
    sql.get<{ seq: number | null }>(
      raw(
        "SELECT max(seq) AS seq FROM embeddings WHERE model = ? AND dimensions = ? AND source_type = 'memory'",
        model,
        dimensions,
      ),
    )?.seq ?? 0;
  const id = sql.get<{ id: number }>(
    raw(
      `INSERT INTO vector_indexes (model, dimensions, table_name, status, fill_cursor, fill_until, created_at, updated_at)
       VALUES (?, ?, 'pending', ?, 0, ?, ?, ?) RETURNING id`,
      model,
      dimensions,
      fillUntil > 0 ? 'filling' : 'ready',
      fillUntil,
      now,
      now,
    ),
  )?.id as number;
  const tableName = `vec_memory_${id}`;
  sql.run(raw('UPDATE vector_indexes SET table_name = ? WHERE id = ?', tableName, id));
  sql.run(
    raw(
      `CREATE VIRTUAL TABLE IF NOT EXISTS ${tableName} USING vec0(
        agent_id text partition key, cell integer partition key,
        embedding float[${dimensions}] distance_metric=cosine, chunk_size=${CHUNK_SIZE})`,
    ),
  );
  // vec0 finds a partition's chunks with a lookup on the partition keys of its chunk table, which
  // has no index of its own: with a thousand lists, each probe scanned every chunk row (0.5 ms per
  // probe at 1,000 chunks; 0.06 ms with this index).
  sql.run(raw(`CREATE INDEX IF NOT EXISTS ${tableName}_chunks_cell ON ${tableName}_chunks (partition00, partition01)`));
  return findVectorIndex(sql, model, dimensions);
}

/** Whether the legacy bit mirror exists, and for which model. */
export function legacyMirror(sql: SqlExecutor): { model: string; dimensions: number } | undefined {
  return sql.get(raw('SELECT model, dimensions FROM vector_index_state WHERE name = ?', LEGACY_BIT_TABLE));
}

/** The model the legacy bit mirror holds, when it exists for vectors of `dimensions`. */
export function legacyMirrorModel(sql: SqlExecutor, dimensions: number): string | undefined {
  const legacy = legacyMirror(sql);
  return legacy && legacy.dimensions === dimensions ? legacy.model : undefined;
}

/** Drops the legacy bit mirror (once the index that replaces it is ready). */
export function dropLegacyMirror(sql: SqlExecutor): void {
  sql.run(raw(`DROP TABLE IF EXISTS ${LEGACY_BIT_TABLE}`));
  sql.run(raw('DELETE FROM vector_index_state WHERE name = ?', LEGACY_BIT_TABLE));
}

/** Records the fill's progress; at the end the index becomes `ready` and the legacy mirror goes. */
export function advanceIndexFill(sql: SqlExecutor, index: VectorIndex, cursor: number, now: number): void {
  const done = cursor >= index.fillUntil;
  if (done) indexesChanged(sql);
  sql.run(
    raw(
      'UPDATE vector_indexes SET fill_cursor = ?, status = ?, updated_at = ? WHERE id = ?',
      cursor,
      done ? 'ready' : 'filling',
      now,
      index.id,
    ),
  );
  if (done) {
    const legacy = legacyMirror(sql);
    if (legacy && legacy.model === index.model && legacy.dimensions === index.dimensions) dropLegacyMirror(sql);
  }
}
