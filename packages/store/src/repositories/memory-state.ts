import type { SqlExecutor } from '../internal/sql.js';
import { get, type Program, portable } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

/** A memory's scope and state, for the Dreaming seam's checks. */
export interface MemoryRowState {
  readonly agentId: string;
  readonly status: 'active' | 'deleted';
  readonly pinned: boolean;
}

const MEMORY_STATE = `SELECT agent_id AS "agentId", CASE is_deleted WHEN 0 THEN 'active' ELSE 'deleted' END AS status, pinned FROM memories WHERE id = ?`;

/** A memory wherever it lives (the caller compares the scope), live or deleted, or undefined. */
export function memoryRowState(sql: SqlExecutor, id: string): MemoryRowState | undefined {
  return runSqliteProgram(sql, memoryRowStateProgram(id));
}

/** {@link memoryRowState} as a program (both dialects). */
export function* memoryRowStateProgram(id: string): Program<MemoryRowState | undefined> {
  const row = yield* get<{ agentId: string; status: 'active' | 'deleted'; pinned: number }>(portable(MEMORY_STATE, id));
  return row ? { agentId: row.agentId, status: row.status, pinned: row.pinned === 1 } : undefined;
}
