import {
  blobToVector,
  bumpLifecycleCountProgram,
  changeMemoryProgram,
  conflictCandidateVectorsProgram,
  findLiveMemoryIdByHashProgram,
  findMemoryProgram,
  type MemoryRow,
  type MemoryVector,
  type MemoryWriteDeps,
  type PortableStore,
  type Program,
  runWriterProgram,
  type WriterTarget,
} from '@memory/store';
import { ConflictKeyIndex, keyHash, linksOf, rowLinks } from './conflict-keys.js';
import { judgeConflict } from './conflict-rule.js';
import type { ParsedRemember } from './inputs.js';
import { commitBatch, type Prepared, type RememberResult } from './remember.js';
import { auditOf, embedOne, type MemoryWriter, writeDeps } from './writer.js';

export { linksOf };

/** Whether conflict detection runs for this input: enabled, an embedder, a checked kind, not opted out. */
export function conflictApplies(writer: MemoryWriter<PortableStore>, input: ParsedRemember): boolean {
  const { conflict } = writer.config.remember;
  return (
    writer.embedder !== undefined && conflict.enabled && input.conflict !== false && conflict.types.includes(input.type)
  );
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The writer's key index (an engine's, kept between calls), or one built for this call alone. */
export function keyIndexOf(writer: MemoryWriter<PortableStore>): ConflictKeyIndex {
  return writer.conflictKeys ?? new ConflictKeyIndex();
}

/** The conflict key hash of an input (undefined when its text can never merge). */
export function itemKeyHash(item: Prepared): number | undefined {
  return keyHash(item.input.type, item.content, linksOf(item.input.linkedEntities ?? []));
}

/** The memories an input may update: by seq (the key index's candidates) and by id (a batch's own). */
export interface ConflictCandidates {
  readonly seqs: readonly number[];
  readonly ids: readonly string[];
}

/**
 * A program (in a read, or in the batch's write): the stored memory among `candidates` (its key's)
 * this input restates or updates: same kind, not pinned or expired, cosine at the embedder's
 * threshold, and merged by the conflict rule. The highest cosine wins (on a tie, the older memory).
 */
export function* bestStoredMatch(
  writer: MemoryWriter<PortableStore>,
  item: Prepared,
  vector: Float32Array,
  candidates: ConflictCandidates,
  now: number,
): Program<{ row: MemoryRow; cosine: number } | undefined> {
  const { config, embedder } = writer;
  const { ids, seqs } = candidates;
  if (!embedder || (ids.length === 0 && seqs.length === 0)) return undefined;
  const threshold = embedder.conflictThreshold ?? config.remember.conflict.threshold;
  const { agentId, type } = item.input;
  const incoming = { content: item.content, links: linksOf(item.input.linkedEntities ?? []) };
  let best: { row: MemoryRow; cosine: number } | undefined;
  const judged = new Set<string>();
  for (const stored of yield* conflictCandidateVectorsProgram(agentId, embedder.model, ids, seqs)) {
    // Named both by seq and by id (stored before the batch, then updated by it): judged once.
    if (judged.has(stored.memoryId)) continue;
    judged.add(stored.memoryId);
    const similarity = cosine(vector, blobToVector(stored.vector));
    if (!(similarity >= threshold) || (best && similarity < best.cosine)) continue;
    const row = yield* findMemoryProgram(agentId, stored.memoryId);
    if (!row || row.type !== type || row.pinned === 1) continue;
    if (row.expires_at !== null && row.expires_at <= now) continue;
    if (best && similarity === best.cosine && row.seq > best.row.seq) continue;
    const existing = { content: row.content, links: rowLinks(row.linked_entities) };
    if (judgeConflict(existing, incoming, similarity, threshold).merge) best = { row, cosine: similarity };
  }
  return best;
}

/**
 * The active memory of the same kind this input restates or updates, if any: the scope's memories
 * with the input's conflict key (the only ones the rule can merge it into), each judged by the rule
 * (same subjects and host links, nothing meaning-changing differs, cosine at the embedder's
 * threshold). Pinned memories are never merged into.
 */
export async function findConflict(
  writer: MemoryWriter<PortableStore>,
  item: Prepared,
  vector: Float32Array,
  hash: number | undefined = itemKeyHash(item),
): Promise<{ row: MemoryRow; cosine: number } | undefined> {
  const { config, store } = writer;
  if (hash === undefined || !writer.embedder) return undefined;
  const { agentId } = item.input;
  const index = keyIndexOf(writer);
  await index.refresh(store, agentId, config.remember.conflict.types);
  const seqs = index.candidates(agentId, hash);
  if (seqs.length === 0) return undefined;
  const now = store.clock.now();
  return store.db.read(() => bestStoredMatch(writer, item, vector, { seqs, ids: [] }, now));
}

/**
 * Remembers one memory with conflict detection: embeds it (outside any transaction), and either
 * updates the memory it restates or updates (history keeps both contents, the reason and the
 * cosine) or stores it. Returns undefined when the plain path should handle it (an exact duplicate,
 * or no vector from the embedder).
 */
export async function rememberChecked(
  writer: MemoryWriter<PortableStore>,
  item: Prepared,
): Promise<RememberResult | undefined> {
  const { store, embedder } = writer;
  const { agentId } = item.input;
  if (!embedder || (await store.db.read(() => findLiveMemoryIdByHashProgram(agentId, item.hash))) !== undefined)
    return undefined;
  const embedding = await embedOne(writer, item.content);
  if (!embedding) return undefined;
  const hash = itemKeyHash(item);
  const found = await findConflict(writer, item, embedding.vector, hash);
  let result: RememberResult | undefined;
  if (found) {
    const target = { id: found.row.id, contentHash: found.row.content_hash };
    const deps = writeDeps(writer);
    result = await runWriterProgram(store, { agentIds: [agentId] }, (writing) =>
      mergeConflict(writing, writer, deps, item, target, embedding, found.cosine),
    );
  }
  result ??= (await commitBatch(writer, [item], () => embedding))[0];
  if (result && !result.deduped) writer.conflictKeys?.noteWritten(result.id, item.hash, hash);
  return result;
}

/**
 * A writer program: gives the memory `target` the item's content (history keeps both contents, the
 * reason and the cosine) and counts the merge. Undefined, changing nothing, when the target was
 * changed or forgotten since it was judged (the caller stores the item instead).
 */
export function* mergeConflict(
  writing: WriterTarget,
  writer: MemoryWriter<PortableStore>,
  deps: MemoryWriteDeps,
  item: Prepared,
  target: { id: string; contentHash: string },
  embedding: MemoryVector,
  similarity: number,
): Program<RememberResult | undefined> {
  const { agentId } = item.input;
  const now = writer.store.clock.now();
  const row = yield* findMemoryProgram(agentId, target.id);
  if (!row || row.content_hash !== target.contentHash) return undefined;
  yield* changeMemoryProgram(
    writing,
    deps,
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
  yield* bumpLifecycleCountProgram(agentId, 'conflict_merged', 1, now);
  return { id: row.id as RememberResult['id'], deduped: false, updated: true, previous: row.content };
}
