import { raw, type SqlExecutor } from '../internal/sql.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';

// Reads for recall's channels. Every function takes the agent and applies it in the statement that
// reads content, so no other scope's row can surface. Lists of ids arrive as one JSON array
// (json_each), and CROSS JOIN makes that list drive the loop: without it the planner scanned the
// agent's whole index once per id.

const ROWS_FOR_IDS = `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}
  FROM json_each(?) AS wanted
  CROSS JOIN memories AS m ON m.id = wanted.value
  WHERE ${MEMORY_FILTERS_SQL}`;

/** The live, in-scope memories among `ids` that pass `filters` (unordered). */
export function readMemoryCandidates(
  sql: SqlExecutor,
  agentId: string,
  ids: readonly string[],
  filters: MemoryFilters,
  now: number,
): MemoryCandidateRow[] {
  if (ids.length === 0) return [];
  return sql.all<MemoryCandidateRow>(
    raw(ROWS_FOR_IDS, JSON.stringify(ids), ...memoryFilterParams(agentId, now, filters)),
  );
}

const RECENT_VECTORS = `
  SELECT source_id AS memoryId, vector
  FROM embeddings
  WHERE agent_id = ? AND model = ? AND source_type = 'memory'
  ORDER BY seq DESC
  LIMIT ?`;

/** The newest `window` memory vectors of one agent and model (the scan fallback without sqlite-vec). */
export function recentMemoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  window: number,
): Array<{ memoryId: string; vector: Buffer }> {
  return sql.all(raw(RECENT_VECTORS, agentId, model, window));
}

/** Number of memory vectors an agent has for a model. */
export function countMemoryVectors(sql: SqlExecutor, agentId: string, model: string): number {
  return (
    sql.get<{ n: number }>(
      raw(
        "SELECT count(*) AS n FROM embeddings WHERE agent_id = ? AND model = ? AND source_type = 'memory'",
        agentId,
        model,
      ),
    )?.n ?? 0
  );
}

const LINKED = `
  SELECT DISTINCT l.memory_id AS memoryId, l.ref_type AS refType, l.ref_id AS refId
  FROM json_each(?) AS ref
  CROSS JOIN memory_links AS l ON l.agent_id = ? AND l.ref_type = ref.value ->> '$[0]' AND l.ref_id = ref.value ->> '$[1]'
  LIMIT ?`;

/** Memories of `agentId` linked to any of the host references. */
export function findLinkedMemories(
  sql: SqlExecutor,
  agentId: string,
  refs: ReadonlyArray<{ type: string; refId: string }>,
  limit: number,
): Array<{ memoryId: string; refType: string; refId: string }> {
  if (refs.length === 0) return [];
  return sql.all(raw(LINKED, JSON.stringify(refs.map((r) => [r.type, r.refId])), agentId, limit));
}

export const RECORD_ACCESS =
  'UPDATE memories SET access_count = access_count + ?, last_accessed = ? WHERE id = ? AND agent_id = ?';

/** Host references of `agentId` whose label (canonical form) is one of `labelKeys`. */
export function resolveLinkLabels(
  sql: SqlExecutor,
  agentId: string,
  labelKeys: readonly string[],
  limit: number,
): Array<{ type: string; refId: string }> {
  if (labelKeys.length === 0) return [];
  return sql.all(
    raw(
      `SELECT DISTINCT l.ref_type AS type, l.ref_id AS refId
       FROM json_each(?) AS k
       CROSS JOIN memory_links AS l ON l.agent_id = ? AND l.label_key = k.value
       LIMIT ?`,
      JSON.stringify(labelKeys),
      agentId,
      limit,
    ),
  );
}

/**
 * Adds accesses to memories, one point update each (an UPDATE … FROM json_each let the planner
 * scan every memory per id: 27 s for 2,000 ids at 100k memories); never touches content, history
 * or updated_at.
 */
export function recordMemoryAccess(
  sql: SqlExecutor,
  agentId: string,
  counts: ReadonlyMap<string, number>,
  now: number,
): number {
  let changed = 0;
  for (const [id, n] of counts) changed += sql.run(raw(RECORD_ACCESS, n, now, id, agentId)).changes;
  return changed;
}

/** Stored vectors of the given memories for one model (to score candidates other channels found). */
export function memoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; vector: Buffer }> {
  if (memoryIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT e.source_id AS memoryId, e.vector
       FROM json_each(?) AS wanted
       CROSS JOIN embeddings AS e ON e.source_type = 'memory' AND e.source_id = wanted.value AND e.model = ?
       WHERE e.agent_id = ?`,
      JSON.stringify(memoryIds),
      model,
      agentId,
    ),
  );
}

/** For each memory that is the source of claims: whether any is still active and whether any was superseded. */
export function claimCurrentness(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; active: number; superseded: number }> {
  if (memoryIds.length === 0) return [];
  return sql.all(
    raw(
      `SELECT c.source_memory_id AS memoryId,
              sum(c.status = 'active') AS active, sum(c.status = 'superseded') AS superseded
       FROM json_each(?) AS wanted
       CROSS JOIN entity_attributes AS c ON c.source_memory_id = wanted.value AND c.agent_id = ?
       GROUP BY c.source_memory_id`,
      JSON.stringify(memoryIds),
      agentId,
    ),
  );
}

/** The first `maxTurns` turns of one of the agent's sessions, in order (for transcript excerpts). */
export function sessionTurns(
  sql: SqlExecutor,
  agentId: string,
  sessionKey: string,
  maxTurns: number,
): Array<{ role: string; content: string }> {
  return sql.all(
    raw(
      'SELECT role, content FROM session_transcript_turns WHERE agent_id = ? AND session_key = ? ORDER BY seq LIMIT ?',
      agentId,
      sessionKey,
      maxTurns,
    ),
  );
}

/** The agent's live and deleted memories, and an upper bound on all memories (for choosing a search plan). */
export function agentMemoryShare(sql: SqlExecutor, agentId: string): { agent: number; total: number } {
  const agent = sql.get<{ n: number }>(raw('SELECT count(*) AS n FROM memories WHERE agent_id = ?', agentId))?.n ?? 0;
  const total = sql.get<{ n: number | null }>(raw('SELECT max(seq) AS n FROM memories'))?.n ?? 0;
  return { agent, total: Math.max(agent, total) };
}
