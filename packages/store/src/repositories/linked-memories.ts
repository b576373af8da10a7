import { raw, type SqlExecutor } from '../internal/sql.js';
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
  if (refs.length === 0 || limit <= 0) return [];
  return sql.all<LinkedMemoryRow>(
    raw(LIVE_LINKED, JSON.stringify(refs.map((r) => [r.type, r.refId])), agentId, agentId, now, limit),
  );
}
