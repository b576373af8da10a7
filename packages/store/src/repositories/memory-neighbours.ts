import { raw, type SqlExecutor } from '../internal/sql.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';

// The memory written just before or after another one, in the agent's (created_at, seq) order:
// for turn memories, the previous and next turn of the conversation. The row-value comparison and
// ORDER BY walk `memories_agent_created` (agent_id, created_at, then the rowid seq) from the seed
// outwards, bounded by the gap, so each lookup reads a handful of index entries.
const NEIGHBOUR = (direction: 'before' | 'after') => `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}
  FROM memories AS m
  WHERE ${MEMORY_FILTERS_SQL}
    AND m.source_type = ?
    AND ${
      direction === 'before'
        ? 'm.created_at >= ? AND (m.created_at, m.seq) < (?, ?)'
        : 'm.created_at <= ? AND (m.created_at, m.seq) > (?, ?)'
    }
  ORDER BY m.created_at ${direction === 'before' ? 'DESC' : 'ASC'}, m.seq ${direction === 'before' ? 'DESC' : 'ASC'}
  LIMIT 1`;
const BEFORE = NEIGHBOUR('before');
const AFTER = NEIGHBOUR('after');

/** A memory next to a seed memory, and which seed (by `seq`) it is next to. */
export interface MemoryNeighbour {
  readonly seed: number;
  readonly row: MemoryCandidateRow;
}

/**
 * For each seed, the agent's live memory written just before it and just after it (by creation
 * time, then write order) that passes `filters`, has the seed's source type, and was created
 * within `gapMs` of it. A seed without a source type has no neighbours. Missing neighbours are
 * left out.
 */
export function findMemoryNeighbours(
  sql: SqlExecutor,
  params: {
    agentId: string;
    seeds: ReadonlyArray<Pick<MemoryCandidateRow, 'seq' | 'created_at' | 'source_type'>>;
    filters: MemoryFilters;
    now: number;
    gapMs: number;
  },
): MemoryNeighbour[] {
  const filterParams = memoryFilterParams(params.agentId, params.now, params.filters);
  const out: MemoryNeighbour[] = [];
  for (const seed of params.seeds) {
    if (seed.source_type === null) continue;
    const at = seed.created_at;
    const before = sql.get<MemoryCandidateRow>(
      raw(BEFORE, ...filterParams, seed.source_type, at - params.gapMs, at, seed.seq),
    );
    if (before) out.push({ seed: seed.seq, row: before });
    const after = sql.get<MemoryCandidateRow>(
      raw(AFTER, ...filterParams, seed.source_type, at + params.gapMs, at, seed.seq),
    );
    if (after) out.push({ seed: seed.seq, row: after });
  }
  return out;
}
