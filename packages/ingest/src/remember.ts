import {
  hashNormalized,
  invalidInput,
  MemoryError,
  type MemoryId,
  normalizeForHash,
  normalizeForStorage,
  parseInput,
  throwIfAborted,
  yieldToEventLoop,
} from '@memory/core';
import {
  agentHasEntities,
  ensureVectorIndex,
  findLiveMemoryIdByHash,
  insertHistory,
  insertMemory,
  replaceMemoryLinks,
  type SqlExecutor,
  upsertEmbedding,
} from '@memory/store';
import { linkMemoryToEntities } from './entity-linker.js';
import type { ParsedRemember } from './inputs.js';
import { auditColumns, embedTexts, type MemoryWriter } from './writer.js';

export interface RememberResult {
  readonly id: MemoryId;
  /** True when a live memory with the same normalized content already existed in this scope. */
  readonly deduped: boolean;
}

export interface Prepared {
  readonly input: ParsedRemember;
  readonly content: string;
  readonly normalized: string;
  readonly hash: string;
}

/** Normalizes and hashes one validated input; content that is only punctuation is refused. */
export function prepare(input: ParsedRemember, operation: string, index?: number): Prepared {
  const content = normalizeForStorage(input.content);
  const normalized = normalizeForHash(content);
  if (normalized.length === 0) {
    const path = index === undefined ? ['content'] : [index, 'content'];
    throw invalidInput(operation, [{ path, message: 'content must hold more than punctuation' }]);
  }
  return { input, content, normalized, hash: hashNormalized(normalized) };
}

/** Which prepared items are new (no live duplicate), read before any embedding is paid for. */
function findNew(writer: MemoryWriter, items: readonly Prepared[]): Prepared[] {
  return writer.store.read((sql) => {
    const seen = new Set<string>();
    return items.filter((item) => {
      const key = `${item.input.agentId}\u0000${item.hash}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return findLiveMemoryIdByHash(sql, item.input.agentId, item.hash) === undefined;
    });
  });
}

export function writeOne(
  writer: MemoryWriter,
  sql: SqlExecutor,
  item: Prepared,
  vector: Float32Array | undefined,
  mirror: boolean,
  linkEntities: boolean,
  now: number,
): RememberResult {
  const { input } = item;
  const id = writer.store.ids.next() as MemoryId;
  const inserted = insertMemory(sql, {
    id,
    agent_id: input.agentId,
    project: input.project ?? null,
    type: input.type,
    category: input.category ?? null,
    content: item.content,
    normalized_content: item.normalized,
    content_hash: item.hash,
    confidence: input.confidence ?? 1,
    importance: input.importance ?? writer.config.remember.defaultImportance,
    source_type: input.source?.type ?? null,
    source_id: input.source?.id ?? null,
    tags: JSON.stringify(input.tags ?? []),
    who: input.who ?? null,
    why: input.why ?? null,
    linked_entities: JSON.stringify(input.linkedEntities ?? []),
    pinned: input.pinned ? 1 : 0,
    expires_at: input.expiresAt ?? null,
    embedding_model: vector && writer.embedder ? writer.embedder.model : null,
    created_at: input.createdAt ?? now,
    updated_at: now,
  });
  if (!inserted) {
    const existing = findLiveMemoryIdByHash(sql, input.agentId, item.hash);
    if (existing) return { id: existing, deduped: true };
    throw new MemoryError('STORAGE_ERROR', 'a memory insert was refused without a live duplicate', {
      details: { agentId: input.agentId },
    });
  }
  insertHistory(sql, {
    id: writer.store.ids.next(),
    memory_id: id,
    agent_id: input.agentId,
    event: 'created',
    old_content: null,
    new_content: item.content,
    reason: null,
    metadata: JSON.stringify({ type: input.type, ...(input.source ? { source: input.source } : {}) }),
    created_at: now,
    ...auditColumns(input.agentId, input),
  });
  if (input.linkedEntities && input.linkedEntities.length > 0) {
    replaceMemoryLinks(sql, input.agentId, id, input.linkedEntities);
  }
  if (linkEntities) linkMemoryToEntities(sql, { id, agentId: input.agentId, content: item.content, now });
  writer.onContentWritten?.(sql, { id, agentId: input.agentId, type: input.type, changed: false });
  if (vector && writer.embedder) {
    upsertEmbedding(
      sql,
      {
        agentId: input.agentId,
        sourceType: 'memory',
        sourceId: id,
        contentHash: item.hash,
        model: writer.embedder.model,
        vector,
        now,
      },
      mirror,
    );
  }
  return { id, deduped: false };
}

/** Embeds what is new, then writes the batch in one transaction. */
async function writeBatch(writer: MemoryWriter, items: readonly Prepared[]): Promise<RememberResult[]> {
  const fresh = writer.embedder ? findNew(writer, items) : [];
  const vectors = await embedTexts(
    writer,
    fresh.map((p) => p.content),
  );
  const vectorOf = new Map<Prepared, Float32Array>();
  for (let i = 0; vectors && i < fresh.length; i++) {
    const vector = vectors[i];
    const item = fresh[i];
    if (vector && item) vectorOf.set(item, vector);
  }

  const { store, config, embedder } = writer;
  return store.write((sql) => {
    const now = store.clock.now();
    const mirror =
      embedder !== undefined &&
      vectorOf.size > 0 &&
      ensureVectorIndex(sql, store.vector.available, embedder.model, embedder.dimensions, now);
    const linking = new Map<string, boolean>();
    const shouldLink = (agentId: string): boolean => {
      if (!config.remember.inlineEntityLinking) return false;
      let has = linking.get(agentId);
      if (has === undefined) {
        has = agentHasEntities(sql, agentId);
        linking.set(agentId, has);
      }
      return has;
    };
    return items.map((item) =>
      writeOne(writer, sql, item, vectorOf.get(item), mirror, shouldLink(item.input.agentId), now),
    );
  });
}

/**
 * Remembers one memory: validate → normalize and hash → embed (outside any transaction) → one
 * write transaction (scoped dedup, insert, history, FTS by trigger, links, inline entity mentions,
 * vector). Remembering the same content again in the same scope returns the existing id.
 */
export async function remember(writer: MemoryWriter, input: unknown): Promise<RememberResult> {
  const item = prepare(parseInput(writer.schemas.remember, input, 'remember'), 'remember');
  const results = await writeBatch(writer, [item]);
  return results[0] as RememberResult;
}

/**
 * Validates and prepares every input before anything is written, in chunks with a yield between
 * them: validating and hashing 10,000 inputs in one go would hold the event loop for ~100 ms.
 */
async function prepareAll(writer: MemoryWriter, inputs: unknown, chunk: number): Promise<Prepared[]> {
  const max = writer.config.limits.maxBatchInputs;
  if (!Array.isArray(inputs))
    throw invalidInput('rememberMany', [{ path: [], message: 'rememberMany needs an array of inputs' }]);
  if (inputs.length > max)
    throw invalidInput('rememberMany', [{ path: [], message: `at most ${max} inputs per call, got ${inputs.length}` }]);
  const prepared: Prepared[] = [];
  for (let start = 0; start < inputs.length; start += chunk) {
    if (start > 0) await yieldToEventLoop();
    const parsed = writer.schemas.rememberChunk.safeParse(inputs.slice(start, start + chunk));
    if (!parsed.success) {
      // Issue paths start with the index inside the chunk; report the index inside the whole input.
      const issues = parsed.error.issues.map((i) => ({
        ...i,
        path: [start + Number(i.path[0] ?? 0), ...i.path.slice(1)],
      }));
      throw invalidInput('rememberMany', issues, parsed.error);
    }
    for (const [i, input] of parsed.data.entries()) prepared.push(prepare(input, 'rememberMany', start + i));
  }
  return prepared;
}

/** Consecutive runs of at most `count` items and (unless one item alone is larger) `bytes` content bytes. */
export function* batches(items: readonly Prepared[], count: number, bytes: number): Generator<Prepared[]> {
  let batch: Prepared[] = [];
  let size = 0;
  for (const item of items) {
    const itemBytes = Buffer.byteLength(item.content, 'utf8');
    if (batch.length > 0 && (batch.length >= count || size + itemBytes > bytes)) {
      yield batch;
      batch = [];
      size = 0;
    }
    batch.push(item);
    size += itemBytes;
  }
  if (batch.length > 0) yield batch;
}

/**
 * Remembers many memories in bounded transactions (`config.remember.batchSize` memories or
 * `config.remember.batchBytes` content bytes each), yielding to
 * the event loop between batches. Every input is validated before anything is written, so a bad
 * input fails the call with nothing stored. Results are in input order.
 */
export async function rememberMany(
  writer: MemoryWriter,
  inputs: unknown,
  signal?: AbortSignal,
): Promise<RememberResult[]> {
  const { batchSize, batchBytes } = writer.config.remember;
  const items = await prepareAll(writer, inputs, batchSize);
  const results: RememberResult[] = [];
  for (const batch of batches(items, batchSize, batchBytes)) {
    if (results.length > 0) await yieldToEventLoop();
    // Before each batch's embedding call and transaction; batches already committed stay.
    throwIfAborted(signal, 'rememberMany');
    results.push(...(await writeBatch(writer, batch)));
  }
  return results;
}
