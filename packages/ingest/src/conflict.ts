import {
  blobToVector,
  bumpLifecycleCount,
  changeMemory,
  findLiveMemoryIdByHash,
  findMemory,
  type MemoryRow,
  type MemoryVector,
  recentMemoryVectors,
  type SqlExecutor,
  searchMemoryVectorsInSlices,
} from '@memory/store';
import { judgeConflict } from './conflict-rule.js';
import type { ParsedRemember } from './inputs.js';
import { parseJsonColumn } from './memory-view.js';
import { commitBatch, type Prepared, type RememberResult } from './remember.js';
import { auditOf, embedOne, type MemoryWriter, writeDeps } from './writer.js';

// Without the vector index (no sqlite-vec, or its index still filling) the newest vectors are
// compared instead: an update usually follows the memory it updates closely.
const FALLBACK_WINDOW = 2000;
const SLICE_ROWS = 20_000;

/** Whether conflict detection runs for this input: enabled, an embedder, a checked kind, not opted out. */
export function conflictApplies(writer: MemoryWriter, input: ParsedRemember): boolean {
  const { conflict } = writer.config.remember;
  return (
    writer.embedder !== undefined && conflict.enabled && input.conflict !== false && conflict.types.includes(input.type)
  );
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The scope's nearest memories to the vector, with their cosine, nearest first. */
async function nearest(
  writer: MemoryWriter,
  agentId: string,
  model: string,
  vector: Float32Array,
  k: number,
): Promise<Array<{ memoryId: string; cosine: number }>> {
  const search = await searchMemoryVectorsInSlices(writer.store, {
    agentId,
    model,
    query: vector,
    k,
    sliceRows: SLICE_ROWS,
  });
  if (search) return search.hits;
  const recent = writer.store.read((sql) => recentMemoryVectors(sql, agentId, model, FALLBACK_WINDOW));
  return recent
    .map((r) => ({ memoryId: r.memoryId, cosine: cosine(vector, blobToVector(r.vector)) }))
    .sort((a, b) => b.cosine - a.cosine)
    .slice(0, k);
}

export const linksOf = (items: ReadonlyArray<{ type?: unknown; refId?: unknown }>): string[] =>
  items.map((l) => `${String(l.type)}:${String(l.refId)}`);

const isLinkArray = (v: unknown): v is Array<{ type?: unknown; refId?: unknown }> => Array.isArray(v);

/**
 * The active memory of the same kind this input restates or updates, if any: the nearest
 * candidates by cosine, each judged by the conflict rule (same subjects and host links, nothing
 * meaning-changing differs, cosine at the embedder's threshold). Pinned memories are never merged into.
 */
export async function findConflict(
  writer: MemoryWriter,
  item: Prepared,
  vector: Float32Array,
): Promise<{ row: MemoryRow; cosine: number } | undefined> {
  const { config, embedder, store } = writer;
  if (!embedder) return undefined;
  const threshold = embedder.conflictThreshold ?? config.remember.conflict.threshold;
  const { agentId } = item.input;
  const hits = (await nearest(writer, agentId, embedder.model, vector, config.remember.conflict.candidates)).filter(
    (h) => h.cosine >= threshold,
  );
  if (hits.length === 0) return undefined;
  const now = store.clock.now();
  const incoming = { content: item.content, links: linksOf(item.input.linkedEntities ?? []) };
  return store.read((sql) => {
    for (const hit of hits) {
      const row = findMemory(sql, agentId, hit.memoryId);
      if (!row || row.type !== item.input.type || row.pinned === 1) continue;
      if (row.expires_at !== null && row.expires_at <= now) continue;
      const existing = { content: row.content, links: linksOf(parseJsonColumn(row.linked_entities, [], isLinkArray)) };
      if (judgeConflict(existing, incoming, hit.cosine, threshold).merge) return { row, cosine: hit.cosine };
    }
    return undefined;
  });
}

/**
 * Remembers one memory with conflict detection: embeds it (outside any transaction), and either
 * updates the memory it restates or updates (history keeps both contents, the reason and the
 * cosine) or stores it. Returns undefined when the plain path should handle it (an exact duplicate,
 * or no vector from the embedder).
 */
export async function rememberChecked(writer: MemoryWriter, item: Prepared): Promise<RememberResult | undefined> {
  const { store, embedder } = writer;
  const { agentId } = item.input;
  if (!embedder || store.read((sql) => findLiveMemoryIdByHash(sql, agentId, item.hash)) !== undefined) return undefined;
  const embedding = await embedOne(writer, item.content);
  if (!embedding) return undefined;
  const found = await findConflict(writer, item, embedding.vector);
  if (found) {
    const merged = store.write((sql) =>
      mergeConflict(
        sql,
        writer,
        item,
        { id: found.row.id, contentHash: found.row.content_hash },
        embedding,
        found.cosine,
      ),
    );
    if (merged) return merged;
  }
  const [result] = commitBatch(writer, [item], () => embedding);
  return result;
}

/**
 * Inside a write transaction: gives the memory `target` the item's content (history keeps both
 * contents, the reason and the cosine) and counts the merge. Undefined, changing nothing, when the
 * target was changed or forgotten since it was judged (the caller stores the item instead).
 */
export function mergeConflict(
  sql: SqlExecutor,
  writer: MemoryWriter,
  item: Prepared,
  target: { id: string; contentHash: string },
  embedding: MemoryVector,
  similarity: number,
): RememberResult | undefined {
  const { agentId } = item.input;
  const now = writer.store.clock.now();
  const row = findMemory(sql, agentId, target.id);
  if (!row || row.content_hash !== target.contentHash) return undefined;
  changeMemory(
    sql,
    writeDeps(writer),
    {
      agentId,
      id: row.id,
      content: { content: item.content, normalized: item.normalized, hash: item.hash },
      embedding,
      importance: Math.max(row.importance, item.input.importance ?? row.importance),
      audit: {
        ...auditOf(item.input),
        reason: 'conflict: the new memory restates or updates this one',
        metadata: { conflict: { cosine: Number(similarity.toFixed(4)) } },
      },
    },
    now,
  );
  bumpLifecycleCount(sql, agentId, 'conflict_merged', 1, now);
  return { id: row.id as RememberResult['id'], deduped: false, updated: true, previous: row.content };
}
