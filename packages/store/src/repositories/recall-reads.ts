import { raw, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  MEMORY_FILTERS_SQL_POSTGRES,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';

// Reads for recall's channels. Every function takes the agent and applies it in the statement that
// reads content, so no other scope's row can surface. On SQLite lists of ids arrive as one JSON
// array (json_each), and CROSS JOIN makes that list drive the loop: without it the planner scanned
// the agent's whole index once per id. On PostgreSQL they arrive as arrays (`= ANY`, `unnest`).
// Each function has a program form (`...Program`) that runs on either dialect.

const ROWS_FOR_IDS = `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}
  FROM json_each(?) AS wanted
  CROSS JOIN memories AS m ON m.id = wanted.value
  WHERE ${MEMORY_FILTERS_SQL}`;
const ROWS_FOR_IDS_POSTGRES = portable(`
  SELECT ${MEMORY_CANDIDATE_COLUMNS}
  FROM memories AS m
  WHERE m.id = ANY(?::text[]) AND ${MEMORY_FILTERS_SQL_POSTGRES}`).postgres.sql;

/** The live, in-scope memories among `ids` that pass `filters` (unordered). */
export function readMemoryCandidates(
  sql: SqlExecutor,
  agentId: string,
  ids: readonly string[],
  filters: MemoryFilters,
  now: number,
): MemoryCandidateRow[] {
  return runSqliteProgram(sql, readMemoryCandidatesProgram(agentId, ids, filters, now));
}

/** {@link readMemoryCandidates} as a program (both dialects). */
export function* readMemoryCandidatesProgram(
  agentId: string,
  ids: readonly string[],
  filters: MemoryFilters,
  now: number,
): Program<MemoryCandidateRow[]> {
  if (ids.length === 0) return [];
  const filterParams = memoryFilterParams(agentId, now, filters);
  return yield* all<MemoryCandidateRow>(
    perDialect(
      { sql: ROWS_FOR_IDS, parameters: [JSON.stringify(ids), ...filterParams] },
      { sql: ROWS_FOR_IDS_POSTGRES, parameters: [[...ids], ...filterParams] },
    ),
  );
}

const RECENT_VECTORS = `
  SELECT source_id AS "memoryId", vector
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
  return runSqliteProgram(sql, recentMemoryVectorsProgram(agentId, model, window));
}

/** {@link recentMemoryVectors} as a program (both dialects). */
export function* recentMemoryVectorsProgram(
  agentId: string,
  model: string,
  window: number,
): Program<Array<{ memoryId: string; vector: Buffer }>> {
  return yield* all<{ memoryId: string; vector: Buffer }>(portable(RECENT_VECTORS, agentId, model, window));
}

/** Number of memory vectors an agent has for a model. */
export function countMemoryVectors(sql: SqlExecutor, agentId: string, model: string): number {
  return runSqliteProgram(sql, countMemoryVectorsProgram(agentId, model));
}

/** {@link countMemoryVectors} as a program (both dialects). */
export function* countMemoryVectorsProgram(agentId: string, model: string): Program<number> {
  const row = yield* get<{ n: number }>(
    portable(
      "SELECT count(*) AS n FROM embeddings WHERE agent_id = ? AND model = ? AND source_type = 'memory'",
      agentId,
      model,
    ),
  );
  return row?.n ?? 0;
}

const LINKED = `
  SELECT DISTINCT l.memory_id AS memoryId, l.ref_type AS refType, l.ref_id AS refId
  FROM json_each(?) AS ref
  CROSS JOIN memory_links AS l ON l.agent_id = ? AND l.ref_type = ref.value ->> '$[0]' AND l.ref_id = ref.value ->> '$[1]'
  LIMIT ?`;
// In the references' order, then by memory (SQLite's follows the references' order too).
const LINKED_POSTGRES = `
  SELECT l.memory_id AS "memoryId", l.ref_type AS "refType", l.ref_id AS "refId"
  FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS ref(type, id, n)
  CROSS JOIN memory_links AS l
  WHERE l.agent_id = $3 AND l.ref_type = ref.type AND l.ref_id = ref.id
  GROUP BY l.memory_id, l.ref_type, l.ref_id
  ORDER BY min(ref.n), l.memory_id COLLATE "C"
  LIMIT $4`;

/** Memories of `agentId` linked to any of the host references. */
export function findLinkedMemories(
  sql: SqlExecutor,
  agentId: string,
  refs: ReadonlyArray<{ type: string; refId: string }>,
  limit: number,
): Array<{ memoryId: string; refType: string; refId: string }> {
  return runSqliteProgram(sql, findLinkedMemoriesProgram(agentId, refs, limit));
}

/** {@link findLinkedMemories} as a program (both dialects). */
export function* findLinkedMemoriesProgram(
  agentId: string,
  refs: ReadonlyArray<{ type: string; refId: string }>,
  limit: number,
): Program<Array<{ memoryId: string; refType: string; refId: string }>> {
  if (refs.length === 0) return [];
  return yield* all<{ memoryId: string; refType: string; refId: string }>(
    perDialect(
      { sql: LINKED, parameters: [JSON.stringify(refs.map((r) => [r.type, r.refId])), agentId, limit] },
      {
        sql: LINKED_POSTGRES,
        parameters: [refs.map((r) => r.type), refs.map((r) => r.refId), agentId, limit],
      },
    ),
  );
}

export const RECORD_ACCESS =
  'UPDATE memories SET access_count = access_count + ?, last_accessed = ? WHERE id = ? AND agent_id = ?';

const LINK_LABELS = `SELECT DISTINCT l.ref_type AS type, l.ref_id AS refId
       FROM json_each(?) AS k
       CROSS JOIN memory_links AS l ON l.agent_id = ? AND l.label_key = k.value
       LIMIT ?`;
const LINK_LABELS_POSTGRES = `SELECT l.ref_type AS type, l.ref_id AS "refId"
       FROM unnest($1::text[]) WITH ORDINALITY AS k(value, n)
       CROSS JOIN memory_links AS l
       WHERE l.agent_id = $2 AND l.label_key = k.value
       GROUP BY l.ref_type, l.ref_id
       ORDER BY min(k.n), l.ref_type COLLATE "C", l.ref_id COLLATE "C"
       LIMIT $3`;

/** Host references of `agentId` whose label (canonical form) is one of `labelKeys`. */
export function resolveLinkLabels(
  sql: SqlExecutor,
  agentId: string,
  labelKeys: readonly string[],
  limit: number,
): Array<{ type: string; refId: string }> {
  return runSqliteProgram(sql, resolveLinkLabelsProgram(agentId, labelKeys, limit));
}

/** {@link resolveLinkLabels} as a program (both dialects). */
export function* resolveLinkLabelsProgram(
  agentId: string,
  labelKeys: readonly string[],
  limit: number,
): Program<Array<{ type: string; refId: string }>> {
  if (labelKeys.length === 0) return [];
  return yield* all<{ type: string; refId: string }>(
    perDialect(
      { sql: LINK_LABELS, parameters: [JSON.stringify(labelKeys), agentId, limit] },
      { sql: LINK_LABELS_POSTGRES, parameters: [[...labelKeys], agentId, limit] },
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
  return runSqliteProgram(sql, recordMemoryAccessProgram(agentId, counts, now));
}

/** {@link recordMemoryAccess} as a program (both dialects). */
export function* recordMemoryAccessProgram(
  agentId: string,
  counts: ReadonlyMap<string, number>,
  now: number,
): Program<number> {
  let changed = 0;
  for (const [id, n] of counts) changed += (yield* run(portable(RECORD_ACCESS, n, now, id, agentId))).changes;
  return changed;
}

const MEMORY_VECTORS = `SELECT e.source_id AS memoryId, e.vector
       FROM json_each(?) AS wanted
       CROSS JOIN embeddings AS e ON e.source_type = 'memory' AND e.source_id = wanted.value AND e.model = ?
       WHERE e.agent_id = ?`;
const MEMORY_VECTORS_POSTGRES = `SELECT e.source_id AS "memoryId", e.vector
       FROM embeddings AS e
       WHERE e.source_type = 'memory' AND e.source_id = ANY($1::text[]) AND e.model = $2 AND e.agent_id = $3`;

/** Stored vectors of the given memories for one model (to score candidates other channels found). */
export function memoryVectors(
  sql: SqlExecutor,
  agentId: string,
  model: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; vector: Buffer }> {
  return runSqliteProgram(sql, memoryVectorsProgram(agentId, model, memoryIds));
}

/** {@link memoryVectors} as a program (both dialects). */
export function* memoryVectorsProgram(
  agentId: string,
  model: string,
  memoryIds: readonly string[],
): Program<Array<{ memoryId: string; vector: Buffer }>> {
  if (memoryIds.length === 0) return [];
  return yield* all<{ memoryId: string; vector: Buffer }>(
    perDialect(
      { sql: MEMORY_VECTORS, parameters: [JSON.stringify(memoryIds), model, agentId] },
      { sql: MEMORY_VECTORS_POSTGRES, parameters: [[...memoryIds], model, agentId] },
    ),
  );
}

const CLAIM_CURRENTNESS = `SELECT c.source_memory_id AS memoryId,
              sum(c.status = 'active') AS active, sum(c.status = 'superseded') AS superseded
       FROM json_each(?) AS wanted
       CROSS JOIN entity_attributes AS c ON c.source_memory_id = wanted.value AND c.agent_id = ?
       GROUP BY c.source_memory_id`;
const CLAIM_CURRENTNESS_POSTGRES = `SELECT c.source_memory_id AS "memoryId",
              count(*) FILTER (WHERE c.status = 'active') AS active,
              count(*) FILTER (WHERE c.status = 'superseded') AS superseded
       FROM entity_attributes AS c
       WHERE c.source_memory_id = ANY($1::text[]) AND c.agent_id = $2
       GROUP BY c.source_memory_id`;

/** For each memory that is the source of claims: whether any is still active and whether any was superseded. */
export function claimCurrentness(
  sql: SqlExecutor,
  agentId: string,
  memoryIds: readonly string[],
): Array<{ memoryId: string; active: number; superseded: number }> {
  return runSqliteProgram(sql, claimCurrentnessProgram(agentId, memoryIds));
}

/** {@link claimCurrentness} as a program (both dialects). */
export function* claimCurrentnessProgram(
  agentId: string,
  memoryIds: readonly string[],
): Program<Array<{ memoryId: string; active: number; superseded: number }>> {
  if (memoryIds.length === 0) return [];
  return yield* all<{ memoryId: string; active: number; superseded: number }>(
    perDialect(
      { sql: CLAIM_CURRENTNESS, parameters: [JSON.stringify(memoryIds), agentId] },
      { sql: CLAIM_CURRENTNESS_POSTGRES, parameters: [[...memoryIds], agentId] },
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
  return runSqliteProgram(sql, sessionTurnsProgram(agentId, sessionKey, maxTurns));
}

/** {@link sessionTurns} as a program (both dialects). */
export function* sessionTurnsProgram(
  agentId: string,
  sessionKey: string,
  maxTurns: number,
): Program<Array<{ role: string; content: string }>> {
  return yield* all<{ role: string; content: string }>(
    portable(
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
