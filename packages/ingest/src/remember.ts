import {
  createTimeSlicer,
  invalidInput,
  type MemoryId,
  parseInput,
  throwIfAborted,
  utf8Length,
  yieldToEventLoop,
} from '@memory/core';
import {
  bumpLifecycleCountProgram,
  createMemoriesProgram,
  findLiveMemoryHashesProgram,
  type MemoryVector,
  type NewMemory,
  type PortableStore,
  type PreparedContent,
  type Program,
  prepareContent,
  runNested,
  runWriterProgram,
} from '@memory/store';
import { type BatchPacer, createBatchPacer } from './batch-pacer.js';
import { conflictApplies, rememberChecked } from './conflict.js';
import { batchKeys, commitWithConflicts, mayNeedVector, refreshBatchKeys } from './conflict-batch.js';
import type { CreatedKey } from './conflict-keys.js';
import type { ParsedRemember } from './inputs.js';
import { parseRememberFast } from './remember-fast.js';
import { auditOf, embedTexts, type MemoryWriter, walBacklog, writeDeps } from './writer.js';

export interface RememberResult {
  readonly id: MemoryId;
  /** True when a live memory with the same normalized content already existed in this scope. */
  readonly deduped: boolean;
  /**
   * Present (true) when conflict detection found that the content restates or updates an existing
   * memory of the same kind: that memory (`id`) now holds the new content; `previous` is what it held.
   */
  readonly updated?: true;
  readonly previous?: string;
}

export interface Prepared extends PreparedContent {
  readonly input: ParsedRemember;
}

/** Normalizes and hashes content for any write path; content that is only punctuation is refused. */
export function prepareText(content: string, operation: string, index?: number): PreparedContent {
  const prepared = prepareContent(content);
  if (prepared.normalized.length === 0) {
    const path = index === undefined ? ['content'] : [index, 'content'];
    throw invalidInput(operation, [{ path, message: 'content must hold more than punctuation' }]);
  }
  return prepared;
}

/** Normalizes and hashes one validated input (see {@link prepareText}). */
export function prepare(input: ParsedRemember, operation: string, index?: number): Prepared {
  return { input, ...prepareText(input.content, operation, index) };
}

/**
 * Which prepared items to embed: the new ones (no live duplicate, first of their content in the
 * batch), read before any embedding is paid for, and `also` (see `mayNeedVector`).
 */
async function findNew(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
  also: ReadonlySet<Prepared>,
): Promise<Prepared[]> {
  const byAgent = new Map<string, string[]>();
  for (const item of items) {
    const hashes = byAgent.get(item.input.agentId) ?? [];
    hashes.push(item.hash);
    byAgent.set(item.input.agentId, hashes);
  }
  // One query per agent and batch, not one per item.
  const live = await writer.store.db.read(function* () {
    const found = new Map<string, Set<string>>();
    for (const [agentId, hashes] of byAgent) found.set(agentId, yield* findLiveMemoryHashesProgram(agentId, hashes));
    return found;
  });
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = `${item.input.agentId}\u0000${item.hash}`;
    const first = !seen.has(key);
    seen.add(key);
    return also.has(item) || (first && !live.get(item.input.agentId)?.has(item.hash));
  });
}

/** The store writer's view of one prepared input. */
export function newMemory(
  writer: MemoryWriter<PortableStore>,
  item: Prepared,
  embedding: MemoryVector | undefined,
): NewMemory {
  const { input } = item;
  return {
    agentId: input.agentId,
    content: { content: item.content, normalized: item.normalized, hash: item.hash },
    type: input.type,
    importance: input.importance ?? writer.config.remember.defaultImportance,
    confidence: input.confidence,
    project: input.project,
    category: input.category,
    source: input.source,
    tags: input.tags,
    who: input.who,
    why: input.why,
    linkedEntities: input.linkedEntities,
    pinned: input.pinned,
    expiresAt: input.expiresAt,
    createdAt: input.createdAt,
    embedding,
    audit: auditOf(input),
  };
}

/** Embeds what is new, then writes the batch in one transaction (timed by `pacer`, when given). */
async function writeBatch(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
  pacer?: BatchPacer,
): Promise<RememberResult[]> {
  // Asked first, so the checkpoint it may wait for runs while this batch is read and embedded.
  const backlog = walBacklog(writer.store);
  // Conflict detection only when an item is of a checked kind (the plain path stays as it was).
  const checking = items.some((item) => conflictApplies(writer, item.input));
  const keys = checking ? batchKeys(writer, items) : undefined;
  const fresh = writer.embedder
    ? await findNew(writer, items, keys ? mayNeedVector(writer, items, keys) : new Set())
    : [];
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

  const { embedder } = writer;
  const embeddingOf = (item: Prepared): MemoryVector | undefined => {
    const vector = vectorOf.get(item);
    return vector && embedder ? { model: embedder.model, vector } : undefined;
  };
  if (backlog) await backlog;
  if (!keys || !fresh.some((item) => vectorOf.has(item) && conflictApplies(writer, item.input))) {
    pacer?.start();
    const results = await commitBatch(writer, items, embeddingOf);
    pacer?.stop(items.length);
    return results;
  }
  const index = await refreshBatchKeys(writer, items);
  pacer?.start();
  const { results, span } = await commitWithConflicts(writer, items, embeddingOf, keys, index);
  pacer?.stop(items.length);
  // The key index takes what was written from here rather than reading the rows back: the memories
  // the batch created by their seqs (see `ConflictKeyIndex.settle`), or else by id and content hash.
  const conflictKeys = writer.conflictKeys;
  if (!conflictKeys) return results;
  const created: CreatedKey[] = [];
  for (const [i, result] of results.entries()) {
    const item = items[i] as Prepared;
    if (!result.deduped && !result.updated)
      created.push({ agentId: item.input.agentId, id: result.id, hash: keys.hashes.get(item) });
  }
  const settled =
    span !== undefined &&
    created.length > 0 &&
    conflictKeys.settle(items[0]?.input.agentId ?? '', span.before, span.after, created);
  for (const [i, result] of results.entries()) {
    const item = items[i] as Prepared;
    const hash = keys.hashes.get(item);
    if (hash === undefined || result.deduped || (settled && !result.updated)) continue;
    conflictKeys.noteWritten(result.id, item.hash, hash);
  }
  return results;
}

/** Counts the duplicates a write prevented (memory health shows them per agent and day). */
export function* countDuplicatesProgram(
  items: readonly Prepared[],
  results: readonly RememberResult[],
  now: number,
): Program<void> {
  const deduped = new Map<string, number>();
  for (const [i, result] of results.entries()) {
    const agentId = items[i]?.input.agentId;
    if (result.deduped && agentId !== undefined) deduped.set(agentId, (deduped.get(agentId) ?? 0) + 1);
  }
  for (const [agentId, n] of deduped) yield* bumpLifecycleCountProgram(agentId, 'duplicate_prevented', n, now);
}

/** The scopes a batch writes to (a PostgreSQL write holds their lock keys). */
export function scopesOf(items: readonly Prepared[]): Set<string> {
  return new Set(items.map((item) => item.input.agentId));
}

/** Writes prepared items (with their vectors) in one transaction, counting prevented duplicates. */
export function commitBatch(
  writer: MemoryWriter<PortableStore>,
  items: readonly Prepared[],
  embeddingOf: (item: Prepared) => MemoryVector | undefined,
): Promise<RememberResult[]> {
  const { store } = writer;
  const deps = writeDeps(writer);
  const memories = items.map((item) => newMemory(writer, item, embeddingOf(item)));
  return runWriterProgram(store, { agentIds: scopesOf(items) }, function* (target) {
    const now = store.clock.now();
    const results = yield* runNested(target, createMemoriesProgram(target, deps, memories, now));
    yield* countDuplicatesProgram(items, results, now);
    return results;
  });
}

/**
 * Remembers one memory: validate → normalize and hash → embed (outside any transaction) → one
 * write transaction (scoped dedup, insert, history, links, inline entity mentions, vector, scoped
 * text index). Remembering the same content again in the same scope returns the existing id.
 */
export async function remember(writer: MemoryWriter<PortableStore>, input: unknown): Promise<RememberResult> {
  const parsed = parseRememberFast(input, writer.config) ?? parseInput(writer.schemas.remember, input, 'remember');
  const item = prepare(parsed, 'remember');
  if (conflictApplies(writer, item.input)) {
    const checked = await rememberChecked(writer, item);
    if (checked) return checked;
  }
  const results = await writeBatch(writer, [item]);
  return results[0] as RememberResult;
}

/** Content bytes validated in one slice of {@link validateAll} before it yields. */
const VALIDATE_SLICE_BYTES = 1024 * 1024;

/** UTF-8 bytes of an input's content, or 0 when it has none (the schema reports that). */
function contentBytes(input: unknown): number {
  const content = typeof input === 'object' && input !== null ? (input as { content?: unknown }).content : undefined;
  return typeof content === 'string' ? utf8Length(content) : 0;
}

/**
 * Validates every input before anything is written. The cost follows the bytes, not the item
 * count (a thousand 64 KiB items cost as much as a million short ones), so the loop yields to the
 * event loop whenever a slice has run ~10 ms or is about to pass {@link VALIDATE_SLICE_BYTES}.
 */
async function validateAll(writer: MemoryWriter<PortableStore>, inputs: unknown): Promise<ParsedRemember[]> {
  const max = writer.config.limits.maxBatchInputs;
  if (!Array.isArray(inputs))
    throw invalidInput('rememberMany', [{ path: [], message: 'rememberMany needs an array of inputs' }]);
  if (inputs.length > max)
    throw invalidInput('rememberMany', [{ path: [], message: `at most ${max} inputs per call, got ${inputs.length}` }]);
  const slicer = createTimeSlicer();
  const valid: ParsedRemember[] = [];
  let sliceBytes = 0;
  for (const [index, input] of inputs.entries()) {
    const bytes = contentBytes(input);
    if (slicer.due() || (sliceBytes > 0 && sliceBytes + bytes > VALIDATE_SLICE_BYTES)) {
      await slicer.yield();
      sliceBytes = 0;
    }
    sliceBytes += bytes;
    const fast = parseRememberFast(input, writer.config);
    if (fast) {
      valid.push(fast);
      continue;
    }
    const parsed = writer.schemas.remember.safeParse(input);
    // Issue paths are reported with the item's index in the whole input.
    if (!parsed.success) throw invalidInput('rememberMany', parsed.error.issues, parsed.error, [index]);
    valid.push(parsed.data);
  }
  return valid;
}

/**
 * Normalizes and hashes one batch just before it is written, in ~10 ms slices. Done per batch, not
 * for the whole call up front, so a call of 1,000 × 64 KiB holds one batch of normalized copies,
 * not 64 MB of them (less memory, shorter garbage-collection pauses). It cannot fail: the content
 * rule already guarantees a letter, digit or symbol, which normalization keeps.
 */
async function prepareBatch(batch: readonly ParsedRemember[], first: number): Promise<Prepared[]> {
  const slicer = createTimeSlicer();
  const prepared: Prepared[] = [];
  for (const [i, input] of batch.entries()) {
    if (slicer.due()) await slicer.yield();
    prepared.push(prepare(input, 'rememberMany', first + i));
  }
  return prepared;
}

/**
 * Consecutive runs of at most `count` items and (unless one item alone is larger) `bytes` content
 * bytes. A `count` function is read as each batch fills, so a consumer that changes it between
 * batches (a pacer) sizes the next one.
 */
export function* batches<T extends { readonly content: string }>(
  items: readonly T[],
  count: number | (() => number),
  bytes: number,
): Generator<T[]> {
  const limit = typeof count === 'number' ? () => count : count;
  let batch: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemBytes = Buffer.byteLength(item.content, 'utf8');
    if (batch.length > 0 && (batch.length >= limit() || size + itemBytes > bytes)) {
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
 * Remembers many memories in bounded transactions (at most `config.remember.batchSize` memories
 * and `config.remember.batchBytes` content bytes each, fewer while transactions run long: see
 * {@link createBatchPacer}), each on a fresh turn of the event loop, and resolves on one. Where the batches end
 * changes no result. Conflict detection applies per item as in `remember`, against stored
 * memories and the call's earlier items (results say `updated`/`previous` per item). Every input
 * is validated before anything is written, so a bad input fails the call with nothing stored.
 * Results are in input order.
 */
export async function rememberMany(
  writer: MemoryWriter<PortableStore>,
  inputs: unknown,
  signal?: AbortSignal,
): Promise<RememberResult[]> {
  const { batchSize, batchBytes } = writer.config.remember;
  const valid = await validateAll(writer, inputs);
  const results: RememberResult[] = [];
  const pacer = createBatchPacer(batchSize);
  for (const batch of batches(valid, () => pacer.size, batchBytes)) {
    // Every batch, the first too, starts on a fresh turn of the event loop: a host that loads
    // with many small calls in a row (one batch each) would otherwise resolve each call through
    // microtasks alone and never let its own timers and I/O run (17.9 s without a turn loading
    // 100k memories over 100 agents in `bench:recall`).
    await yieldToEventLoop();
    // Before each batch's embedding call and transaction; batches already committed stay.
    throwIfAborted(signal, 'rememberMany');
    const items = await prepareBatch(batch, results.length);
    results.push(...(await writeBatch(writer, items, pacer)));
  }
  // The call resolves on a fresh turn too: the caller's continuation (reading 10,000 results,
  // preparing its next call) ran on the last transaction's turn and made it a 60 ms slice.
  await yieldToEventLoop();
  return results;
}
