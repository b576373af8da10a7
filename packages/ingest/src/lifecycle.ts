import {
  contentHash,
  MemoryError,
  type MemoryId,
  normalizeForHash,
  normalizeForStorage,
  parseInput,
} from '@memory/core';
import {
  ensureVectorIndex,
  findLiveMemoryIdByHash,
  findMemory,
  insertHistory,
  type MemoryRow,
  type MemoryRowUpdate,
  updateMemory,
  upsertEmbedding,
} from '@memory/store';
import { type Memory, toMemory } from './memory-view.js';
import { type AuditContext, auditColumns, embedTexts, type MemoryWriter } from './writer.js';

const DAY_MS = 86_400_000;

function notFound(id: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no memory ${id} in this scope`, { details: { id } });
}

function parseId(writer: MemoryWriter, id: unknown, operation: string): MemoryId {
  return parseInput(writer.schemas.id, id, operation) as MemoryId;
}

function historyRow(
  writer: MemoryWriter,
  row: MemoryRow,
  event: 'updated' | 'deleted' | 'recovered',
  audit: AuditContext & { reason?: string | undefined },
  change: { oldContent: string | null; newContent: string | null; metadata: Record<string, unknown> },
  now: number,
) {
  return {
    id: writer.store.ids.next(),
    memory_id: row.id,
    agent_id: row.agent_id,
    event,
    old_content: change.oldContent,
    new_content: change.newContent,
    reason: audit.reason ?? null,
    metadata: JSON.stringify(change.metadata),
    created_at: now,
    ...auditColumns(row.agent_id, audit),
  };
}

/**
 * Changes a live memory's content, importance, tags or pinned flag, recording old and new content in
 * history. New content that equals another live memory of the same agent is a `CONFLICT`.
 */
export async function modifyMemory(writer: MemoryWriter, id: unknown, input: unknown): Promise<Memory> {
  const memoryId = parseId(writer, id, 'modify');
  const patch = parseInput(writer.schemas.modify, input, 'modify');
  const content = patch.content === undefined ? undefined : normalizeForStorage(patch.content);
  const vectors = content === undefined ? undefined : await embedTexts(writer, [content]);
  const { store, embedder } = writer;

  return store.write((sql) => {
    const row = findMemory(sql, patch.agentId, memoryId);
    if (!row) throw notFound(memoryId);
    const now = store.clock.now();
    const update: MemoryRowUpdate = { updated_at: now, update_count: row.update_count + 1 };
    const changed: string[] = [];
    const contentChanged = content !== undefined && content !== row.content;
    if (contentChanged) {
      const hash = contentHash(content);
      const clash = findLiveMemoryIdByHash(sql, row.agent_id, hash);
      if (clash && clash !== row.id) {
        throw new MemoryError('CONFLICT', `memory ${clash} already holds this content`, {
          details: { id: memoryId, existingId: clash },
        });
      }
      Object.assign(update, { content, normalized_content: normalizeForHash(content), content_hash: hash });
      changed.push('content');
    }
    if (patch.importance !== undefined && patch.importance !== row.importance) {
      update.importance = patch.importance;
      changed.push('importance');
    }
    if (patch.tags !== undefined) {
      update.tags = JSON.stringify(patch.tags);
      changed.push('tags');
    }
    if (patch.pinned !== undefined && (patch.pinned ? 1 : 0) !== row.pinned) {
      update.pinned = patch.pinned ? 1 : 0;
      changed.push('pinned');
    }
    const vector = vectors?.[0];
    if (contentChanged && vector && embedder) {
      const mirror = ensureVectorIndex(sql, store.vector.available, embedder.model, embedder.dimensions, now);
      upsertEmbedding(
        sql,
        {
          agentId: row.agent_id,
          sourceType: 'memory',
          sourceId: row.id,
          contentHash: update.content_hash as string,
          model: embedder.model,
          vector,
          now,
        },
        mirror,
      );
      update.embedding_model = embedder.model;
    }
    updateMemory(sql, row.agent_id, row.id, update);
    if (contentChanged)
      writer.onContentWritten?.(sql, { id: row.id, agentId: row.agent_id, type: row.type, changed: true });
    insertHistory(
      sql,
      historyRow(
        writer,
        row,
        'updated',
        patch,
        {
          oldContent: row.content,
          newContent: contentChanged ? (content ?? null) : row.content,
          metadata: {
            changed,
            ...(patch.importance !== undefined ? { importance: [row.importance, patch.importance] } : {}),
          },
        },
        now,
      ),
    );
    const after = findMemory(sql, row.agent_id, row.id);
    if (!after) throw notFound(memoryId);
    return toMemory(after);
  });
}

export interface ForgetResult {
  readonly id: MemoryId;
  /** False when the memory was already forgotten (nothing changed). */
  readonly forgotten: boolean;
}

/** Soft-deletes a memory (recoverable for `config.retention.recoverWindowDays`). Pinned memories need `force`. */
export async function forgetMemory(writer: MemoryWriter, id: unknown, input: unknown): Promise<ForgetResult> {
  const memoryId = parseId(writer, id, 'forget');
  const options = parseInput(writer.schemas.forget, input, 'forget');
  const { store } = writer;
  return store.write((sql) => {
    const row = findMemory(sql, options.agentId, memoryId, { includeDeleted: true });
    if (!row) throw notFound(memoryId);
    if (row.is_deleted === 1) return { id: memoryId, forgotten: false };
    if (row.pinned === 1 && !options.force) {
      throw new MemoryError('PINNED', `memory ${memoryId} is pinned; pass force: true to forget it`, {
        details: { id: memoryId },
      });
    }
    const now = store.clock.now();
    updateMemory(sql, row.agent_id, row.id, { is_deleted: 1, deleted_at: now, updated_at: now });
    insertHistory(
      sql,
      historyRow(
        writer,
        row,
        'deleted',
        options,
        { oldContent: row.content, newContent: null, metadata: { force: options.force === true } },
        now,
      ),
    );
    return { id: memoryId, forgotten: true };
  });
}

/** Restores a forgotten memory within the recovery window. */
export async function recoverMemory(writer: MemoryWriter, id: unknown, input: unknown): Promise<Memory> {
  const memoryId = parseId(writer, id, 'recover');
  const options = parseInput(writer.schemas.recover, input, 'recover');
  const { store, config } = writer;
  return store.write((sql) => {
    const row = findMemory(sql, options.agentId, memoryId, { includeDeleted: true });
    if (!row) throw notFound(memoryId);
    if (row.is_deleted === 0)
      throw new MemoryError('CONFLICT', `memory ${memoryId} is not forgotten`, { details: { id: memoryId } });
    const now = store.clock.now();
    const windowMs = config.retention.recoverWindowDays * DAY_MS;
    if (row.deleted_at !== null && now - row.deleted_at > windowMs) {
      throw new MemoryError(
        'CONFLICT',
        `memory ${memoryId} was forgotten more than ${config.retention.recoverWindowDays} days ago and can no longer be recovered`,
        {
          details: { id: memoryId, deletedAt: row.deleted_at },
        },
      );
    }
    const clash = findLiveMemoryIdByHash(sql, row.agent_id, row.content_hash);
    if (clash) {
      throw new MemoryError('CONFLICT', `memory ${clash} already holds this content; recovering would duplicate it`, {
        details: { id: memoryId, existingId: clash },
      });
    }
    updateMemory(sql, row.agent_id, row.id, { is_deleted: 0, deleted_at: null, updated_at: now });
    insertHistory(
      sql,
      historyRow(writer, row, 'recovered', options, { oldContent: null, newContent: row.content, metadata: {} }, now),
    );
    const after = findMemory(sql, row.agent_id, row.id);
    if (!after) throw notFound(memoryId);
    return toMemory(after);
  });
}
