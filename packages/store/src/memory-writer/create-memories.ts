import { hashNormalized, MemoryError, type MemoryId, normalizeForHash, normalizeForStorage } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import { type LinkRef, replaceMemoryLinks } from '../repositories/links.js';
import { findLiveMemoryIdByHash, insertMemoryRow } from '../repositories/memories.js';
import type { MemoryType } from '../schema/memories.js';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps } from './context.js';
import { deriveLive, recordHistory, WriteSession } from './derived.js';
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
  const normalized = normalizeForHash(stored);
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

function createOne(session: WriteSession, text: TextIndexBatch, memory: NewMemory): CreatedMemory {
  const { sql, deps, now } = session;
  const id = deps.ids.next() as MemoryId;
  const seq = insertMemoryRow(sql, {
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
  });
  if (seq === undefined) {
    const existing = findLiveMemoryIdByHash(sql, memory.agentId, memory.content.hash);
    if (existing) return { id: existing, deduped: true };
    throw new MemoryError('STORAGE_ERROR', 'a memory insert was refused without a live duplicate', {
      details: { agentId: memory.agentId },
    });
  }
  text.add(memory.agentId, seq, memory.content.content);
  recordHistory(sql, deps, {
    memoryId: id,
    agentId: memory.agentId,
    event: 'created',
    oldContent: null,
    newContent: memory.content.content,
    audit: memory.audit,
    metadata: { type: memory.type, ...(memory.source ? { source: memory.source } : {}) },
    now,
  });
  if (memory.linkedEntities && memory.linkedEntities.length > 0) {
    replaceMemoryLinks(sql, memory.agentId, id, memory.linkedEntities);
  }
  deriveLive(
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
  return { id, deduped: false };
}

/**
 * Creates memories inside the caller's write transaction, in order: scoped dedup by content hash
 * (the unique partial index decides), the row, its history, host links, the vector and its mirror
 * row, inline entity mentions, and the host's derived work (hints). The vector partitions' counts
 * and the scoped text index are written last, for the whole call at once (the text index's insert
 * trigger stays idle meanwhile).
 */
export function createMemories(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  memories: readonly NewMemory[],
  now: number,
): CreatedMemory[] {
  const session = new WriteSession(sql, deps, now, { batched: true });
  const text = new TextIndexBatch();
  return sql.withMemoryTextIndexDeferred(() => {
    const created = memories.map((memory) => createOne(session, text, memory));
    session.finish();
    text.flush(sql);
    return created;
  });
}
