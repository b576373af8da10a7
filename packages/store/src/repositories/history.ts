import { chunkSizes, statementsBySize, valueRows } from '../internal/row-chunks.js';
import type { SqlExecutor } from '../internal/sql.js';
import { queryBuilder } from '../internal/sql.js';
import { all, type Program, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { MemoryHistoryRow, NewMemoryHistoryRow } from '../schema/memories.js';

const HISTORY_COLUMNS = `INSERT INTO memory_history (
  id, memory_id, agent_id, event, old_content, new_content, changed_by, actor_type, reason, metadata,
  session_id, request_id, created_at
) VALUES `;
const HISTORY_VALUES = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const INSERT_HISTORY = `${HISTORY_COLUMNS}${HISTORY_VALUES}`;
// Many rows go in statements of 16, then 8, 4, 2 and 1 rows (the binary digits of the rest), from
// five cached statement texts (see row-chunks.ts).
const insertHistoryRows = statementsBySize((n) => `${HISTORY_COLUMNS}${valueRows(n, HISTORY_VALUES)}`);

function historyParameters(row: Omit<NewMemoryHistoryRow, 'seq'>): unknown[] {
  return [
    row.id,
    row.memory_id,
    row.agent_id,
    row.event,
    row.old_content ?? null,
    row.new_content ?? null,
    row.changed_by,
    row.actor_type,
    row.reason ?? null,
    row.metadata ?? '{}',
    row.session_id ?? null,
    row.request_id ?? null,
    row.created_at,
  ];
}

/**
 * Appends audit rows in order (seqs follow the array), in as few statements as the sizes above
 * allow: a bulk write's history takes about one statement per 16 memories instead of one each.
 */
export function* insertHistoryRowsProgram(rows: ReadonlyArray<Omit<NewMemoryHistoryRow, 'seq'>>): Program<void> {
  let i = 0;
  for (const n of chunkSizes(rows.length)) {
    const parameters: unknown[] = [];
    for (let j = i; j < i + n; j++) parameters.push(...historyParameters(rows[j] as Omit<NewMemoryHistoryRow, 'seq'>));
    yield* run(portable(insertHistoryRows(n), ...parameters));
    i += n;
  }
}

/** Appends one audit row. History is never updated or deleted by this module. */
export function insertHistory(sql: SqlExecutor, row: Omit<NewMemoryHistoryRow, 'seq'>): void {
  runSqliteProgram(sql, insertHistoryProgram(row));
}

/** {@link insertHistory} as a program (both dialects). */
export function* insertHistoryProgram(row: Omit<NewMemoryHistoryRow, 'seq'>): Program<void> {
  yield* run(portable(INSERT_HISTORY, ...historyParameters(row)));
}

/** The audit trail of one memory in `agentId`'s scope, oldest first. */
export function listHistory(sql: SqlExecutor, agentId: string, memoryId: string): MemoryHistoryRow[] {
  return runSqliteProgram(sql, listHistoryProgram(agentId, memoryId));
}

/** {@link listHistory} as a program (both dialects): another agent's memory has no history here. */
export function* listHistoryProgram(agentId: string, memoryId: string): Program<MemoryHistoryRow[]> {
  return yield* all(
    queryBuilder
      .selectFrom('memory_history')
      .selectAll()
      .where('memory_id', '=', memoryId)
      .where('agent_id', '=', agentId)
      .orderBy('seq'),
  );
}
