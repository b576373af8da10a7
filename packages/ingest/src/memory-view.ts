import type { MemoryId } from '@memory/core';
import type { MemoryHistoryRow, MemoryRow, MemoryType } from '@memory/store';

/** A host reference attached to a memory. */
export interface LinkedEntity {
  readonly type: string;
  readonly refId: string;
  readonly label?: string;
}

/** A memory as the public API returns it. Times are epoch milliseconds. */
export interface Memory {
  readonly id: MemoryId;
  readonly agentId: string;
  readonly content: string;
  readonly type: MemoryType;
  readonly category: string | null;
  readonly importance: number;
  readonly confidence: number;
  readonly tags: readonly string[];
  readonly project: string | null;
  readonly who: string | null;
  readonly why: string | null;
  readonly source: { readonly type: string; readonly id: string } | null;
  readonly linkedEntities: readonly LinkedEntity[];
  readonly pinned: boolean;
  readonly deleted: boolean;
  readonly deletedAt: number | null;
  readonly expiresAt: number | null;
  readonly accessCount: number;
  readonly lastAccessed: number | null;
  readonly updateCount: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** One audit entry. */
export interface HistoryEntry {
  readonly id: string;
  readonly memoryId: MemoryId;
  readonly event: MemoryHistoryRow['event'];
  readonly oldContent: string | null;
  readonly newContent: string | null;
  readonly changedBy: string;
  readonly actorType: MemoryHistoryRow['actor_type'];
  readonly reason: string | null;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly sessionId: string | null;
  readonly requestId: string | null;
  readonly at: number;
}

/** Parses a JSON column the engine wrote itself; a damaged value degrades to `fallback`. */
export function parseJsonColumn<T>(text: string, fallback: T, check: (value: unknown) => value is T): T {
  try {
    const value: unknown = JSON.parse(text);
    return check(value) ? value : fallback;
  } catch {
    return fallback;
  }
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const isLinkedEntities = (v: unknown): v is LinkedEntity[] =>
  Array.isArray(v) &&
  v.every((x) => typeof x === 'object' && x !== null && typeof (x as LinkedEntity).refId === 'string');
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id as MemoryId,
    agentId: row.agent_id,
    content: row.content,
    type: row.type,
    category: row.category,
    importance: row.importance,
    confidence: row.confidence,
    tags: parseJsonColumn(row.tags, [], isStringArray),
    project: row.project,
    who: row.who,
    why: row.why,
    source: row.source_type !== null && row.source_id !== null ? { type: row.source_type, id: row.source_id } : null,
    linkedEntities: parseJsonColumn(row.linked_entities, [], isLinkedEntities),
    pinned: row.pinned === 1,
    deleted: row.is_deleted === 1,
    deletedAt: row.deleted_at,
    expiresAt: row.expires_at,
    accessCount: row.access_count,
    lastAccessed: row.last_accessed,
    updateCount: row.update_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toHistoryEntry(row: MemoryHistoryRow): HistoryEntry {
  return {
    id: row.id,
    memoryId: row.memory_id as MemoryId,
    event: row.event,
    oldContent: row.old_content,
    newContent: row.new_content,
    changedBy: row.changed_by,
    actorType: row.actor_type,
    reason: row.reason,
    metadata: parseJsonColumn(row.metadata, {}, isRecord),
    sessionId: row.session_id,
    requestId: row.request_id,
    at: row.created_at,
  };
}
