import { raw, type SqlExecutor } from '../internal/sql.js';
import type { ListCentroids } from './kmeans.js';

// Centroids of an ivf generation, one row per list (list_id ≥ 1, matching its cell) plus one per
// coarse group (list_id = -1 - group). A generation's centroids never change once written, and a
// partition's generations only ever count up (index ids are AUTOINCREMENT, so a dropped and
// recreated index never reuses one), so a process may cache them by (index, agent, generation)
// without asking whether another process changed them. List sizes do change (drains); they are
// only used for explain's counts.

function blob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function floats(buffer: Buffer): Float32Array {
  const out = new Float32Array(buffer.byteLength >>> 2);
  new Uint8Array(out.buffer).set(buffer.subarray(0, out.length * 4));
  return out;
}

/** Writes a generation's centroids with the number of vectors assigned to each list. */
export function saveCentroids(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
  c: ListCentroids,
): void {
  const dims = c.dimensions;
  const insert = `INSERT INTO vector_centroids (index_id, agent_id, generation, list_id, group_id, size, centroid)
    VALUES (?, ?, ?, ?, ?, 0, ?)`;
  c.groupOf.forEach((group, list) => {
    const centroid = c.centroids.subarray(list * dims, list * dims + dims);
    sql.run(raw(insert, key.indexId, key.agentId, key.generation, list + 1, group, blob(centroid)));
  });
  c.listsOfGroup.forEach((_lists, group) => {
    const centroid = c.groupCentroids.subarray(group * dims, group * dims + dims);
    sql.run(raw(insert, key.indexId, key.agentId, key.generation, -1 - group, group, blob(centroid)));
  });
}

/** Adds assigned vectors to list sizes (keyed by 0-based list). */
export function addListSizes(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
  counts: ReadonlyMap<number, number>,
): void {
  for (const [list, n] of counts) {
    sql.run(
      raw(
        `UPDATE vector_centroids SET size = size + ?
         WHERE index_id = ? AND agent_id = ? AND generation = ? AND list_id = ?`,
        n,
        key.indexId,
        key.agentId,
        key.generation,
        list + 1,
      ),
    );
  }
}

/** Removes a generation's centroids. */
export function deleteCentroids(sql: SqlExecutor, key: { indexId: number; agentId: string; generation: number }): void {
  sql.run(
    raw(
      'DELETE FROM vector_centroids WHERE index_id = ? AND agent_id = ? AND generation = ?',
      key.indexId,
      key.agentId,
      key.generation,
    ),
  );
}

/** Reads a generation's centroids; undefined when it has none. */
export function loadCentroids(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
  dims: number,
): ListCentroids | undefined {
  const rows = sql.all<{ listId: number; groupId: number; centroid: Buffer }>(
    raw(
      `SELECT list_id AS listId, group_id AS groupId, centroid FROM vector_centroids
       WHERE index_id = ? AND agent_id = ? AND generation = ? ORDER BY list_id`,
      key.indexId,
      key.agentId,
      key.generation,
    ),
  );
  const lists = rows.filter((r) => r.listId > 0);
  const groups = rows.filter((r) => r.listId < 0).sort((a, b) => a.groupId - b.groupId);
  if (lists.length === 0 || groups.length === 0) return undefined;
  const centroids = new Float32Array(lists.length * dims);
  const groupCentroids = new Float32Array(groups.length * dims);
  const groupOf = new Int32Array(lists.length);
  const members: number[][] = groups.map(() => []);
  for (const r of lists) {
    const list = r.listId - 1;
    centroids.set(floats(r.centroid).subarray(0, dims), list * dims);
    groupOf[list] = r.groupId;
    members[r.groupId]?.push(list);
  }
  for (const g of groups) groupCentroids.set(floats(g.centroid).subarray(0, dims), g.groupId * dims);
  return { dimensions: dims, centroids, groupCentroids, groupOf, listsOfGroup: members.map((m) => Int32Array.from(m)) };
}

/** Vectors per list (0-based) of a generation, as of its build and later drains. */
export function loadListSizes(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
): Int32Array {
  const rows = sql.all<{ listId: number; size: number }>(
    raw(
      `SELECT list_id AS listId, size FROM vector_centroids
       WHERE index_id = ? AND agent_id = ? AND generation = ? AND list_id > 0`,
      key.indexId,
      key.agentId,
      key.generation,
    ),
  );
  const sizes = new Int32Array(rows.length);
  for (const r of rows) sizes[r.listId - 1] = r.size;
  return sizes;
}

// Per store (keyed by its executor, so two databases in one process never share entries), bounded
// by bytes; least recently used first out. List sizes are cached by the partition's drained seq,
// which every drain moves, so a drain elsewhere is seen on the next query.
const CACHE_BYTES = 64 * 1024 * 1024;
const caches = new WeakMap<SqlExecutor, Map<string, ListCentroids>>();
const sizeCaches = new WeakMap<SqlExecutor, Map<string, Int32Array>>();

function cacheOf<T>(all: WeakMap<SqlExecutor, Map<string, T>>, sql: SqlExecutor): Map<string, T> {
  let cache = all.get(sql);
  if (!cache) {
    cache = new Map();
    all.set(sql, cache);
  }
  return cache;
}

/** A generation's centroids through the per-store cache. */
export function cachedCentroids(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number },
  dims: number,
): ListCentroids | undefined {
  const cache = cacheOf(caches, sql);
  const id = `${key.indexId}\u0000${key.agentId}\u0000${key.generation}`;
  const hit = cache.get(id);
  if (hit) {
    cache.delete(id);
    cache.set(id, hit);
    return hit;
  }
  const loaded = loadCentroids(sql, key, dims);
  if (!loaded) return undefined;
  cache.set(id, loaded);
  let bytes = 0;
  for (const entry of cache.values()) bytes += entry.centroids.byteLength;
  for (const [oldest, entry] of cache) {
    if (bytes <= CACHE_BYTES || cache.size <= 1) break;
    bytes -= entry.centroids.byteLength;
    cache.delete(oldest);
  }
  return loaded;
}

/**
 * Puts a generation's list sizes in the per-store cache under a new position (`drainedSeq`, or a
 * build's cursor): what a step just wrote, so the next step need not read them back.
 */
export function rememberListSizes(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number; drainedSeq: number },
  sizes: Int32Array,
): void {
  const cache = cacheOf(sizeCaches, sql);
  const prefix = `${key.indexId}\u0000${key.agentId}\u0000${key.generation}\u0000`;
  for (const old of cache.keys()) if (old.startsWith(prefix)) cache.delete(old);
  cache.set(`${prefix}${key.drainedSeq}`, sizes);
  if (cache.size > 256) cache.delete(cache.keys().next().value as string);
}

/** A generation's list sizes through the per-store cache, refreshed when the partition drains. */
export function cachedListSizes(
  sql: SqlExecutor,
  key: { indexId: number; agentId: string; generation: number; drainedSeq: number },
): Int32Array {
  const cache = cacheOf(sizeCaches, sql);
  const prefix = `${key.indexId}\u0000${key.agentId}\u0000${key.generation}\u0000`;
  const id = `${prefix}${key.drainedSeq}`;
  let sizes = cache.get(id);
  if (!sizes) {
    sizes = loadListSizes(sql, key);
    for (const old of cache.keys()) if (old.startsWith(prefix)) cache.delete(old);
    cache.set(id, sizes);
    if (cache.size > 256) cache.delete(cache.keys().next().value as string);
  }
  return sizes;
}
