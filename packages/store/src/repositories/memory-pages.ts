import { raw, type SqlExecutor } from '../internal/sql.js';
import type { MemoryRow } from '../schema/memories.js';

/** Where a page of {@link listMemoryPage} starts: after this (created_at, seq) position. */
export interface MemoryPagePosition {
  readonly createdAt: number;
  readonly seq: number;
}

// Newest first by (created_at, seq): the (agent_id, created_at) index already orders an agent's rows
// by time, and seq (the rowid, carried by every index) breaks ties, so each page is an index range
// read however deep the caller pages, never an OFFSET scan.
const PAGE = `SELECT * FROM memories
  WHERE agent_id = ? AND (? = 1 OR is_deleted = 0)
    AND (? IS NULL OR created_at < ? OR (created_at = ? AND seq < ?))
  ORDER BY created_at DESC, seq DESC
  LIMIT ?`;

/**
 * One page of an agent's memories, newest first, starting after `after` (keyset paging). Forgotten
 * memories only with `includeDeleted`.
 */
export function listMemoryPage(
  sql: SqlExecutor,
  agentId: string,
  options: { after?: MemoryPagePosition | undefined; limit: number; includeDeleted?: boolean | undefined },
): MemoryRow[] {
  const at = options.after;
  const createdAt = at ? at.createdAt : null;
  const seq = at ? BigInt(at.seq) : null;
  return sql.all<MemoryRow>(
    raw(PAGE, agentId, options.includeDeleted ? 1 : 0, createdAt, createdAt, createdAt, seq, options.limit),
  );
}
