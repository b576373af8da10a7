import { MemoryError } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import { copyMemoryToCold, findLiveMemoryIdByHash, findMemory, updateMemory } from '../repositories/memories.js';
import type { MemoryRow } from '../schema/memories.js';
import { memoryNotFound } from './change-memory.js';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps } from './context.js';
import { deriveLive, dropDerived, recordHistory, WriteSession } from './derived.js';

export interface ForgetRequest {
  readonly agentId: string;
  readonly id: string;
  /** Pinned memories are forgotten only with `force`. */
  readonly force?: boolean | undefined;
  /** Keep a cold copy of the row first (Dreaming's archive does; a recoverable forget need not). */
  readonly coldCopy?: boolean | undefined;
  readonly audit: MemoryAudit;
}

/**
 * Soft-deletes a memory inside the caller's write transaction: the row stays (recoverable) but
 * everything derived from its content for retrieval (vectors, hints, mentions) is removed, so no
 * channel can surface it. Returns false when it was already forgotten.
 */
export function forgetMemoryRecord(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  request: ForgetRequest,
  now: number,
): boolean {
  const row = findMemory(sql, request.agentId, request.id, { includeDeleted: true });
  if (!row) throw memoryNotFound(request.id);
  if (row.is_deleted === 1) return false;
  if (row.pinned === 1 && !request.force) {
    throw new MemoryError('PINNED', `memory ${request.id} is pinned; pass force: true to forget it`, {
      details: { id: request.id },
    });
  }
  const historyId = recordHistory(sql, deps, {
    memoryId: row.id,
    agentId: row.agent_id,
    event: 'deleted',
    oldContent: row.content,
    newContent: null,
    audit: request.audit,
    metadata: { force: request.force === true },
    now,
  });
  if (request.coldCopy) copyMemoryToCold(sql, row, historyId, request.audit.reason ?? 'forgotten', now);
  dropDerived(new WriteSession(sql, deps, now), row);
  updateMemory(sql, row.agent_id, row.id, { is_deleted: 1, deleted_at: now, updated_at: now, embedding_model: null });
  return true;
}

export interface RecoverRequest {
  readonly agentId: string;
  readonly id: string;
  /** How long after being forgotten a memory may come back, in milliseconds. */
  readonly windowMs: number;
  /** The vector of the memory's content, computed before the transaction. */
  readonly embedding?: MemoryVector | undefined;
  readonly audit: MemoryAudit;
}

/**
 * Brings a forgotten memory back inside the caller's write transaction, within the recovery window
 * and only when no live memory of the scope holds the same content (`CONFLICT` otherwise); its
 * derived surfaces (vector, mentions, hints) are rebuilt. Returns the row after recovery.
 */
export function recoverMemoryRecord(
  sql: SqlExecutor,
  deps: MemoryWriteDeps,
  request: RecoverRequest,
  now: number,
): MemoryRow {
  const row = findMemory(sql, request.agentId, request.id, { includeDeleted: true });
  if (!row) throw memoryNotFound(request.id);
  if (row.is_deleted === 0) {
    throw new MemoryError('CONFLICT', `memory ${request.id} is not forgotten`, { details: { id: request.id } });
  }
  if (row.deleted_at !== null && now - row.deleted_at > request.windowMs) {
    const days = Math.round(request.windowMs / 86_400_000);
    throw new MemoryError(
      'CONFLICT',
      `memory ${request.id} was forgotten more than ${days} days ago and can no longer be recovered`,
      { details: { id: request.id, deletedAt: row.deleted_at } },
    );
  }
  const clash = findLiveMemoryIdByHash(sql, row.agent_id, row.content_hash);
  if (clash) {
    throw new MemoryError('CONFLICT', `memory ${clash} already holds this content; recovering would duplicate it`, {
      details: { id: request.id, existingId: clash },
    });
  }
  updateMemory(sql, row.agent_id, row.id, {
    is_deleted: 0,
    deleted_at: null,
    updated_at: now,
    embedding_model: request.embedding?.model ?? null,
  });
  recordHistory(sql, deps, {
    memoryId: row.id,
    agentId: row.agent_id,
    event: 'recovered',
    oldContent: null,
    newContent: row.content,
    audit: request.audit,
    metadata: {},
    now,
  });
  deriveLive(new WriteSession(sql, deps, now), row, 'recovered', request.embedding);
  const after = findMemory(sql, row.agent_id, row.id);
  if (!after) throw memoryNotFound(request.id);
  return after;
}
