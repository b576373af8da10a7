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
import type { MemoryRow, MemoryRowUpdate } from '../schema/memories.js';
import type { MemoryAudit, MemoryVector, MemoryWriteDeps, WriterTarget } from './context.js';
import type { PreparedContent } from './create-memories.js';
import { deriveLive, dropDerived, followTextIndex, recordHistory, WriteSession } from './derived.js';

/** A change to a live memory. Only the fields given change. */
export interface MemoryChange {
  readonly agentId: string;
  readonly id: string;
  /** New content from `prepareContent`; equal content is not a change. */
  readonly content?: PreparedContent | undefined;
  /** The vector of the new content, computed before the transaction. */
  readonly embedding?: MemoryVector | undefined;
  readonly importance?: number | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly pinned?: boolean | undefined;
  readonly audit: MemoryAudit;
}

export function memoryNotFound(id: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no memory ${id} in this scope`, { details: { id } });
}

function patchOf(row: MemoryRow, change: MemoryChange, now: number): { update: MemoryRowUpdate; changed: string[] } {
  const update: MemoryRowUpdate = { updated_at: now, update_count: row.update_count + 1 };
  const changed: string[] = [];
  const content = change.content;
  if (content !== undefined && content.content !== row.content) {
    Object.assign(update, {
      content: content.content,
      normalized_content: content.normalized,
      content_hash: content.hash,
      embedding_model: change.embedding?.model ?? null,
    });
    changed.push('content');
  }
  if (change.importance !== undefined && change.importance !== row.importance) {
    update.importance = change.importance;
    changed.push('importance');
  }
  if (change.tags !== undefined) {
    update.tags = JSON.stringify(change.tags);
    changed.push('tags');
  }
  if (change.pinned !== undefined && (change.pinned ? 1 : 0) !== row.pinned) {
    update.pinned = change.pinned ? 1 : 0;
    changed.push('pinned');
  }
  return { update, changed };
}

/**
 * Changes a live memory inside the caller's write transaction. New content must not equal another
 * live memory of the scope (`CONFLICT`); when it changes, the previous row is copied to the cold
 * table, everything derived from the old content (vectors, hints, mentions) is removed, and the new
 * content is derived again (vector when given, mentions, hints through `onContentLive`). The scoped
 * text index follows by trigger. History keeps old and new content. Returns the row after the change.
 */
export function changeMemory(sql: SqlExecutor, deps: MemoryWriteDeps, change: MemoryChange, now: number): MemoryRow {
  return runSqliteProgram(sql, changeMemoryProgram({ dialect: 'sqlite', sql }, deps, change, now));
}

/** {@link changeMemory} as a program (both dialects; on PostgreSQL it moves the text index rows itself). */
export function* changeMemoryProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  change: MemoryChange,
  now: number,
): Program<MemoryRow> {
  const row = yield* findMemoryProgram(change.agentId, change.id);
  if (!row) throw memoryNotFound(change.id);
  const { update, changed } = patchOf(row, change, now);
  const contentChanged = changed.includes('content');
  const next = change.content;
  if (contentChanged && next) {
    const clash = yield* findLiveMemoryIdByHashProgram(row.agent_id, next.hash);
    if (clash && clash !== row.id) {
      throw new MemoryError('CONFLICT', `memory ${clash} already holds this content`, {
        details: { id: row.id, existingId: clash },
      });
    }
  }
  const historyId = yield* recordHistory(deps, {
    memoryId: row.id,
    agentId: row.agent_id,
    event: 'updated',
    oldContent: row.content,
    newContent: contentChanged && next ? next.content : row.content,
    audit: change.audit,
    metadata: {
      changed,
      ...(change.importance !== undefined ? { importance: [row.importance, change.importance] } : {}),
    },
    now,
  });
  const session = new WriteSession(target, deps, now);
  if (contentChanged && next) {
    yield* copyMemoryToColdProgram(row, historyId, change.audit.reason ?? 'content replaced', now);
    yield* dropDerived(session, row);
  }
  yield* updateMemoryProgram(row.agent_id, row.id, update);
  if (contentChanged && next) {
    yield* followTextIndex(session, row, { remove: row.content, add: next.content });
    yield* deriveLive(
      session,
      { id: row.id, agent_id: row.agent_id, type: row.type, content: next.content, content_hash: next.hash },
      'replaced',
      change.embedding,
    );
  }
  const after = yield* findMemoryProgram(row.agent_id, row.id);
  if (!after) throw memoryNotFound(change.id);
  return after;
}
