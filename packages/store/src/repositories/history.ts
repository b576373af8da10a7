import { queryBuilder, raw, type SqlExecutor } from '../internal/sql.js';
import type { MemoryHistoryRow, NewMemoryHistoryRow } from '../schema/memories.js';

const INSERT_HISTORY = `INSERT INTO memory_history (
  id, memory_id, agent_id, event, old_content, new_content, changed_by, actor_type, reason, metadata,
  session_id, request_id, created_at
) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

/** Appends one audit row. History is never updated or deleted by this module. */
export function insertHistory(sql: SqlExecutor, row: Omit<NewMemoryHistoryRow, 'seq'>): void {
  sql.run(
    raw(
      INSERT_HISTORY,
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
    ),
  );
}

/** The audit trail of one memory in `agentId`'s scope, oldest first. */
export function listHistory(sql: SqlExecutor, agentId: string, memoryId: string): MemoryHistoryRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('memory_history')
      .selectAll()
      .where('memory_id', '=', memoryId)
      .where('agent_id', '=', agentId)
      .orderBy('seq')
      .compile(),
  );
}
