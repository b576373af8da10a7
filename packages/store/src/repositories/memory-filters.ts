import type { MemoryType } from '../schema/memories.js';

/** Filters every recall channel applies when it reads memory rows. Absent fields do not filter. */
export interface MemoryFilters {
  readonly types?: readonly MemoryType[] | undefined;
  /** Every listed tag must be on the memory. */
  readonly tags?: readonly string[] | undefined;
  readonly project?: string | undefined;
  readonly who?: string | undefined;
  readonly pinned?: boolean | undefined;
  /** importance ≥ this. */
  readonly importanceMin?: number | undefined;
  /** created_at ≥ since (epoch ms). */
  readonly since?: number | undefined;
  /** created_at < until (epoch ms). */
  readonly until?: number | undefined;
  /** The search window: created_at ≥ windowStart, except for pinned memories, which are always in it. */
  readonly windowStart?: number | undefined;
}

/**
 * The scope and filter conditions on `m` (memories). Absent filters bind NULL and drop out, so each
 * query shape is one cached statement. Agent, liveness and expiry come first: no other scope's row
 * passes, whatever the filters say.
 */
export const MEMORY_FILTERS_SQL = `
    m.agent_id = ?
    AND m.is_deleted = 0
    AND (m.expires_at IS NULL OR m.expires_at > ?)
    AND (? IS NULL OR m.type IN (SELECT value FROM json_each(?)))
    AND (? IS NULL OR m.project = ?)
    AND (? IS NULL OR m.who = ?)
    AND (? IS NULL OR m.pinned = ?)
    AND (? IS NULL OR m.importance >= ?)
    AND (? IS NULL OR m.created_at >= ?)
    AND (? IS NULL OR m.created_at < ?)
    AND (? IS NULL OR m.created_at >= ? OR m.pinned = 1)
    AND (? IS NULL OR NOT EXISTS (
          SELECT 1 FROM json_each(?) AS wanted
          WHERE wanted.value NOT IN (SELECT value FROM json_each(m.tags))))`;

/**
 * {@link MEMORY_FILTERS_SQL} for PostgreSQL, with the same parameters in the same order (`?` here,
 * numbered by `portable` where it is used): typed NULL tests, JSON lists through jsonb.
 */
export const MEMORY_FILTERS_SQL_POSTGRES = `
    m.agent_id = ?
    AND m.is_deleted = 0
    AND (m.expires_at IS NULL OR m.expires_at > ?::bigint)
    AND (?::text IS NULL OR m.type IN (SELECT jsonb_array_elements_text(?::jsonb)))
    AND (?::text IS NULL OR m.project = ?)
    AND (?::text IS NULL OR m.who = ?)
    AND (?::integer IS NULL OR m.pinned = ?)
    AND (?::double precision IS NULL OR m.importance >= ?)
    AND (?::bigint IS NULL OR m.created_at >= ?)
    AND (?::bigint IS NULL OR m.created_at < ?)
    AND (?::bigint IS NULL OR m.created_at >= ? OR m.pinned = 1)
    AND (?::text IS NULL OR m.tags::jsonb @> ?::jsonb)`;

/** Columns every channel reads for a candidate memory. */
export const MEMORY_CANDIDATE_COLUMNS =
  'm.seq, m.id, m.content, m.type, m.tags, m.project, m.who, m.importance, m.pinned, m.source_type, m.source_id, m.linked_entities, m.created_at, m.updated_at, m.content_hash';

/** A memory row as recall channels read it. */
export interface MemoryCandidateRow {
  readonly seq: number;
  readonly id: string;
  readonly content: string;
  readonly type: MemoryType;
  readonly tags: string;
  readonly project: string | null;
  readonly who: string | null;
  readonly importance: number;
  readonly pinned: 0 | 1;
  readonly source_type: string | null;
  readonly source_id: string | null;
  readonly linked_entities: string;
  readonly created_at: number;
  readonly updated_at: number;
  /** The content's hash: the last tie-breaker of a stable order. */
  readonly content_hash: string;
}

/** Parameters for {@link MEMORY_FILTERS_SQL}, in order. */
export function memoryFilterParams(agentId: string, now: number, f: MemoryFilters): unknown[] {
  const types = f.types && f.types.length > 0 ? JSON.stringify(f.types) : null;
  const tags = f.tags && f.tags.length > 0 ? JSON.stringify(f.tags) : null;
  const pair = (value: unknown): [unknown, unknown] => [value ?? null, value ?? null];
  const pinned = f.pinned === undefined ? null : f.pinned ? 1 : 0;
  return [
    agentId,
    now,
    types,
    types,
    ...pair(f.project),
    ...pair(f.who),
    pinned,
    pinned,
    ...pair(f.importanceMin),
    ...pair(f.since),
    ...pair(f.until),
    ...pair(f.windowStart),
    tags,
    tags,
  ];
}
