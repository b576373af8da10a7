import type { SqlExecutor } from '../internal/sql.js';
import { get, type Program, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import {
  MEMORY_CANDIDATE_COLUMNS,
  MEMORY_FILTERS_SQL,
  MEMORY_FILTERS_SQL_POSTGRES,
  type MemoryCandidateRow,
  type MemoryFilters,
  memoryFilterParams,
} from './memory-filters.js';

// The memory written just before or after another one, in the agent's (created_at, seq) order:
// for turn memories, the previous and next turn of the conversation. The row-value comparison and
// ORDER BY walk `memories_agent_created` (agent_id, created_at, then the rowid seq) from the seed
// outwards, bounded by the gap, so each lookup reads a handful of index entries.
const NEIGHBOUR = (direction: 'before' | 'after', filters: string, bigint: string) => `
  SELECT ${MEMORY_CANDIDATE_COLUMNS}
  FROM memories AS m
  WHERE ${filters}
    AND m.source_type = ?
    AND ${
      direction === 'before'
        ? `m.created_at >= ?${bigint} AND (m.created_at, m.seq) < (?${bigint}, ?${bigint})`
        : `m.created_at <= ?${bigint} AND (m.created_at, m.seq) > (?${bigint}, ?${bigint})`
    }
  ORDER BY m.created_at ${direction === 'before' ? 'DESC' : 'ASC'}, m.seq ${direction === 'before' ? 'DESC' : 'ASC'}
  LIMIT 1`;
// One text per dialect (PostgreSQL's filters and casts), placeholders numbered for PostgreSQL.
const neighbourQuery = (direction: 'before' | 'after') => {
  const sqlite = NEIGHBOUR(direction, MEMORY_FILTERS_SQL, '');
  const postgres = portable(NEIGHBOUR(direction, MEMORY_FILTERS_SQL_POSTGRES, '::bigint')).postgres.sql;
  return (parameters: unknown[]) => ({ sqlite: { sql: sqlite, parameters }, postgres: { sql: postgres, parameters } });
};
const BEFORE = neighbourQuery('before');
const AFTER = neighbourQuery('after');

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
  return runSqliteProgram(sql, findMemoryNeighboursProgram(params));
}

/** {@link findMemoryNeighbours} as a program (both dialects). */
export function* findMemoryNeighboursProgram(params: {
  agentId: string;
  seeds: ReadonlyArray<Pick<MemoryCandidateRow, 'seq' | 'created_at' | 'source_type'>>;
  filters: MemoryFilters;
  now: number;
  gapMs: number;
}): Program<MemoryNeighbour[]> {
  const filterParams = memoryFilterParams(params.agentId, params.now, params.filters);
  const out: MemoryNeighbour[] = [];
  for (const seed of params.seeds) {
    if (seed.source_type === null) continue;
    const at = seed.created_at;
    const before = yield* get<MemoryCandidateRow>(
      BEFORE([...filterParams, seed.source_type, at - params.gapMs, at, seed.seq]),
    );
    if (before) out.push({ seed: seed.seq, row: before });
    const after = yield* get<MemoryCandidateRow>(
      AFTER([...filterParams, seed.source_type, at + params.gapMs, at, seed.seq]),
    );
    if (after) out.push({ seed: seed.seq, row: after });
  }
  return out;
}
