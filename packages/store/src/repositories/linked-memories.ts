import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import { MEMORY_CANDIDATE_COLUMNS, type MemoryCandidateRow } from './memory-filters.js';

/** A live memory linked to one of the host references asked for, with the reference that links it. */
export interface LinkedMemoryRow extends MemoryCandidateRow {
  readonly ref_type: string;
  readonly ref_id: string;
}

// The reference list drives the loop (CROSS JOIN) through the memory_links_ref index; memories are
// then read by primary key. Pinned, important and recent first, so the LIMIT keeps the best rows
// when a host object has many memories. No search window: a structural link is the point.
const LIVE_LINKED = `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}, l.ref_type, l.ref_id
  FROM json_each(?) AS ref
  CROSS JOIN memory_links AS l ON l.agent_id = ? AND l.ref_type = ref.value ->> '$[0]' AND l.ref_id = ref.value ->> '$[1]'
  CROSS JOIN memories AS m ON m.id = l.memory_id
  WHERE m.agent_id = ? AND m.is_deleted = 0 AND (m.expires_at IS NULL OR m.expires_at > ?)
  ORDER BY m.pinned DESC, m.importance DESC, m.created_at DESC, m.seq DESC
  LIMIT ?`;
// PostgreSQL: the reference list as two parallel arrays, unnested in order.
const LIVE_LINKED_PG = `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}, l.ref_type, l.ref_id
  FROM unnest($1::text[], $2::text[]) AS ref (ref_type, ref_id)
  CROSS JOIN memory_links AS l
  CROSS JOIN memories AS m
  WHERE l.agent_id = $3 AND l.ref_type = ref.ref_type AND l.ref_id = ref.ref_id AND m.id = l.memory_id
    AND m.agent_id = $3 AND m.is_deleted = 0 AND (m.expires_at IS NULL OR m.expires_at > $4)
  ORDER BY m.pinned DESC, m.importance DESC, m.created_at DESC, m.seq DESC
  LIMIT $5`;

/**
 * Live, unexpired memories of `agentId` linked to any of the host references, one row per
 * (memory, reference) pair, best first (pinned, importance, recency); at most `limit` rows.
 */
export function findLiveLinkedMemories(
  sql: SqlExecutor,
  agentId: string,
  refs: ReadonlyArray<{ type: string; refId: string }>,
  now: number,
  limit: number,
): LinkedMemoryRow[] {
  return runSqliteProgram(sql, findLiveLinkedMemoriesProgram(agentId, refs, now, limit));
}

/** {@link findLiveLinkedMemories} as a program (both dialects). */
export function* findLiveLinkedMemoriesProgram(
  agentId: string,
  refs: ReadonlyArray<{ type: string; refId: string }>,
  now: number,
  limit: number,
): Program<LinkedMemoryRow[]> {
  if (refs.length === 0 || limit <= 0) return [];
  return yield* all<LinkedMemoryRow>(
    perDialect(
      raw(LIVE_LINKED, JSON.stringify(refs.map((r) => [r.type, r.refId])), agentId, agentId, now, limit),
      raw(
        LIVE_LINKED_PG,
        refs.map((r) => r.type),
        refs.map((r) => r.refId),
        agentId,
        now,
        limit,
      ),
    ),
  );
}
