import { foldStoredForHash, hashNormalized, MemoryError, type MemoryId, normalizeForStorage } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { type EmbeddingToStore, insertFreshEmbeddingsProgram } from '../repositories/embeddings.js';
import { insertHistoryRowsProgram } from '../repositories/history.js';
import { type LinkRef, replaceMemoryLinksProgram } from '../repositories/links.js';
import {
  addLiveMemoryCountsProgram,
  countDay,
  findLiveMemoryIdByHashProgram,
  insertMemoryRowsProgram,
  type NewLiveMemory,
} from '../repositories/memories.js';
import type { MemoryType, NewMemoryHistoryRow } from '../schema/memories.js';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps, WriterTarget } from './context.js';
import { deriveLive, historyRow, WriteSession } from './derived.js';
import { TextIndexBatch } from './text-index-batch.js';

/** Content in the three forms the store keeps: as stored, as compared, and its hash. */
export interface PreparedContent {
  readonly content: string;
  readonly normalized: string;
  readonly hash: string;
}

/**
 * Normalizes content the one way every writer does (NFC, trimmed, for storage; folded for
 * comparison) and hashes it. Dedup, conflict checks and the unique index all rely on this.
 */
export function prepareContent(content: string): PreparedContent {
  const stored = normalizeForStorage(content);
  const normalized = foldStoredForHash(stored);
  return { content: stored, normalized, hash: hashNormalized(normalized) };
}

/** One memory to create. `content` comes from {@link prepareContent}. */
export interface NewMemory {
  readonly agentId: string;
  readonly content: PreparedContent;
  readonly type: MemoryType;
  readonly importance: number;
  readonly confidence?: number | undefined;
  readonly project?: string | null | undefined;
  readonly category?: string | null | undefined;
  readonly source?: { readonly type: string; readonly id: string | null } | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly who?: string | null | undefined;
  readonly why?: string | null | undefined;
  readonly linkedEntities?: readonly LinkRef[] | undefined;
  readonly pinned?: boolean | undefined;
  readonly expiresAt?: number | null | undefined;
  /** The memory's own time (imports and backfills); defaults to now. */
  readonly createdAt?: number | undefined;
  /** The vector of `content`, computed before the transaction; without one the memory has none yet. */
  readonly embedding?: MemoryVector | undefined;
  readonly audit: MemoryAudit;
}

export interface CreatedMemory {
  readonly id: MemoryId;
  /** True when a live memory with the same content already existed in the scope (nothing written). */
  readonly deduped: boolean;
}

/** The row of a new memory. */
function memoryRow(memory: NewMemory, id: MemoryId, now: number): NewLiveMemory {
  return {
    id,
    agent_id: memory.agentId,
    project: memory.project ?? null,
    type: memory.type,
    category: memory.category ?? null,
    content: memory.content.content,
    normalized_content: memory.content.normalized,
    content_hash: memory.content.hash,
    confidence: memory.confidence ?? 1,
    importance: memory.importance,
    source_type: memory.source?.type ?? null,
    source_id: memory.source?.id ?? null,
    tags: JSON.stringify(memory.tags ?? []),
    who: memory.who ?? null,
    why: memory.why ?? null,
    linked_entities: JSON.stringify(memory.linkedEntities ?? []),
    pinned: memory.pinned ? 1 : 0,
    expires_at: memory.expiresAt ?? null,
    embedding_model: memory.embedding?.model ?? null,
    created_at: memory.createdAt ?? now,
    updated_at: now,
  };
}

/** New live memories per scope, embedding model and day (the key of their `memory_counts` row). */
class LiveCounts {
  readonly #counts = new Map<string, { agentId: string; model: string; day: number; n: number }>();

  add(agentId: string, model: string, day: number): void {
    const key = `${agentId}\u0000${model}\u0000${day}`;
    const count = this.#counts.get(key);
    if (count) count.n++;
    else this.#counts.set(key, { agentId, model, day, n: 1 });
  }

  values(): IterableIterator<{ agentId: string; model: string; day: number; n: number }> {
    return this.#counts.values();
  }
}

/** What follows a new memory's row: its text index rows, history, host links, mentions and hooks. */
function* deriveCreated(
  session: WriteSession,
  text: TextIndexBatch,
  history: Array<Omit<NewMemoryHistoryRow, 'seq'>>,
  memory: NewMemory,
  id: MemoryId,
  seq: number,
): Program<void> {
  const { deps, now } = session;
  text.add(memory.agentId, seq, memory.content.content);
  // Written with the call's other history rows, in order, after the loop (few statements for many).
  history.push(
    historyRow(deps, {
      memoryId: id,
      agentId: memory.agentId,
      event: 'created',
      oldContent: null,
      newContent: memory.content.content,
      audit: memory.audit,
      metadata: { type: memory.type, ...(memory.source ? { source: memory.source } : {}) },
      now,
    }),
  );
  if (memory.linkedEntities && memory.linkedEntities.length > 0) {
    yield* replaceMemoryLinksProgram(memory.agentId, id, memory.linkedEntities);
  }
  yield* deriveLive(
    session,
    {
      id,
      agent_id: memory.agentId,
      type: memory.type,
      content: memory.content.content,
      content_hash: memory.content.hash,
    },
    'created',
    memory.embedding,
  );
}

/**
 * Creates memories inside the caller's write transaction, in order: the rows (many to a statement
 * on PostgreSQL, one each on SQLite), with scoped dedup by content hash (the unique partial index
 * decides; a refused row resolves to the live memory of its content, which may be an earlier one
 * of the same call); the new memories' vectors and their index rows, many to a statement; then for
 * each new memory its host links, inline entity mentions and the host's derived work (hints). The history rows (in
 * the memories' order), the vector partitions' counts and the scoped text index are written last,
 * for the whole call at once (the text index's insert trigger stays idle meanwhile). On SQLite inside
 * `withMemoryTextIndexDeferred` it also counts its live rows in `memory_counts`, per scope, model and
 * day, after their vectors (the same trigger counted each row before migration 21).
 */
export function createMemories(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  memories: readonly NewMemory[],
  now: number,
): CreatedMemory[] {
  return sql.withMemoryTextIndexDeferred(() =>
    runSqliteProgram(sql, createMemoriesProgram({ dialect: 'sqlite', sql }, deps, memories, now)),
  );
}

/**
 * {@link createMemories} as a program. On SQLite run it inside `withMemoryTextIndexDeferred` (as
 * `createMemories` does) or the insert trigger indexes each memory a second time; on PostgreSQL
 * it is the only indexer of its inserts. Concurrent writers of the same content in one scope on
 * PostgreSQL: the second one's insert waits on the unique index, then fails serialization and is
 * run again by the store, and its retry sees the first one's row (`deduped: true`).
 */
export function* createMemoriesProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  memories: readonly NewMemory[],
  now: number,
): Program<CreatedMemory[]> {
  const session = new WriteSession(target, deps, now, { batched: true });
  const ids = memories.map(() => deps.ids.next() as MemoryId);
  // One row per statement on SQLite, many on PostgreSQL (see insertMemoryRowsProgram).
  const seqs = yield* insertMemoryRowsProgram(
    memories.map((memory, i) => memoryRow(memory, ids[i] as MemoryId, now)),
    target.dialect === 'sqlite' ? 1 : 16,
  );
  const created: CreatedMemory[] = [];
  const vectors: EmbeddingToStore[] = [];
  // The live counts of the new rows, when the insert trigger left them to this writer (SQLite,
  // triggers idle; migration 21): one upsert per scope, model and day instead of one per row.
  const counts = target.dialect === 'sqlite' && target.sql.memoryTextIndexDeferred ? new LiveCounts() : undefined;
  for (const [i, memory] of memories.entries()) {
    const id = ids[i] as MemoryId;
    if (!seqs.has(id)) {
      const existing = yield* findLiveMemoryIdByHashProgram(memory.agentId, memory.content.hash);
      if (!existing)
        throw new MemoryError('STORAGE_ERROR', 'a memory insert was refused without a live duplicate', {
          details: { agentId: memory.agentId },
        });
      created.push({ id: existing, deduped: true });
      continue;
    }
    created.push({ id, deduped: false });
    counts?.add(memory.agentId, memory.embedding?.model ?? '', countDay(memory.createdAt ?? now));
    if (!memory.embedding) continue;
    vectors.push({
      agentId: memory.agentId,
      sourceType: 'memory',
      sourceId: id,
      contentHash: memory.content.hash,
      model: memory.embedding.model,
      vector: memory.embedding.vector,
      now,
    });
    session.storedVectors.add(id);
  }
  // The new memories' vectors, before any hook runs (the hooks may read them).
  yield* insertFreshEmbeddingsProgram(vectors, session.vectors);
  if (counts) yield* addLiveMemoryCountsProgram(counts.values());
  const text = new TextIndexBatch();
  const history: Array<Omit<NewMemoryHistoryRow, 'seq'>> = [];
  for (const [i, memory] of memories.entries()) {
    const id = ids[i] as MemoryId;
    const seq = seqs.get(id);
    if (seq !== undefined) yield* deriveCreated(session, text, history, memory, id, seq);
  }
  yield* insertHistoryRowsProgram(history);
  session.finish();
  yield* text.flushProgram();
  return created;
}
