import { MemoryError } from '@memory/core';
import type { SqlExecutor } from '../internal/sql.js';
import type { Program } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import {
  copyMemoryToColdProgram,
  findLiveMemoryIdByHashProgram,
  findMemoryProgram,
  updateMemoryProgram,
} from '../repositories/memories.js';
import type { MemoryRow } from '../schema/memories.js';
import { memoryNotFound } from './change-memory.js';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps, WriterTarget } from './context.js';
import { deriveLive, dropDerived, followTextIndex, recordHistory, WriteSession } from './derived.js';

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
  return runSqliteProgram(sql, forgetMemoryProgram({ dialect: 'sqlite', sql }, deps, request, now));
}

/** {@link forgetMemoryRecord} as a program (both dialects; on PostgreSQL it unindexes the text itself). */
export function* forgetMemoryProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  request: ForgetRequest,
  now: number,
): Program<boolean> {
  const row = yield* findMemoryProgram(request.agentId, request.id, { includeDeleted: true });
  if (!row) throw memoryNotFound(request.id);
  if (row.is_deleted === 1) return false;
  if (row.pinned === 1 && !request.force) {
    throw new MemoryError('PINNED', `memory ${request.id} is pinned; pass force: true to forget it`, {
      details: { id: request.id },
    });
  }
  const historyId = yield* recordHistory(deps, {
    memoryId: row.id,
    agentId: row.agent_id,
    event: 'deleted',
    oldContent: row.content,
    newContent: null,
    audit: request.audit,
    metadata: { force: request.force === true },
    now,
  });
  if (request.coldCopy) yield* copyMemoryToColdProgram(row, historyId, request.audit.reason ?? 'forgotten', now);
  const session = new WriteSession(target, deps, now);
  yield* dropDerived(session, row);
  yield* updateMemoryProgram(row.agent_id, row.id, {
    is_deleted: 1,
    deleted_at: now,
    updated_at: now,
    embedding_model: null,
  });
  yield* followTextIndex(session, row, { remove: row.content });
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
  return runSqliteProgram(sql, recoverMemoryProgram({ dialect: 'sqlite', sql }, deps, request, now));
}

/** {@link recoverMemoryRecord} as a program (both dialects; on PostgreSQL it indexes the text itself). */
export function* recoverMemoryProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  request: RecoverRequest,
  now: number,
): Program<MemoryRow> {
  const row = yield* findMemoryProgram(request.agentId, request.id, { includeDeleted: true });
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
  const clash = yield* findLiveMemoryIdByHashProgram(row.agent_id, row.content_hash);
  if (clash) {
    throw new MemoryError('CONFLICT', `memory ${clash} already holds this content; recovering would duplicate it`, {
      details: { id: request.id, existingId: clash },
    });
  }
  yield* updateMemoryProgram(row.agent_id, row.id, {
    is_deleted: 0,
    deleted_at: null,
    updated_at: now,
    embedding_model: request.embedding?.model ?? null,
  });
  yield* recordHistory(deps, {
    memoryId: row.id,
    agentId: row.agent_id,
    event: 'recovered',
    oldContent: null,
    newContent: row.content,
    audit: request.audit,
    metadata: {},
    now,
  });
  const session = new WriteSession(target, deps, now);
  yield* followTextIndex(session, row, { add: row.content });
  yield* deriveLive(session, row, 'recovered', request.embedding);
  const after = yield* findMemoryProgram(row.agent_id, row.id);
  if (!after) throw memoryNotFound(request.id);
  return after;
}
