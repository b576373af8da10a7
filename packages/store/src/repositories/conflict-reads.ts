import { raw, type SqlExecutor } from '../internal/sql.js';

// Reads for conflict detection's key index (ingest's conflict-keys.ts): the text of a scope's live
// memories of the checked kinds, walked in seq order, so the index can be built in bounded pages and
// caught up with rows written since (by any path) without reading the scope again.

/** What the conflict rule reads of a memory. */
export interface ConflictSourceRow {
  readonly seq: number;
  readonly id: string;
  readonly type: string;
  readonly content: string;
  readonly contentHash: string;
  readonly linkedEntities: string;
}

const columns = (m: string) =>
  `${m}seq AS seq, ${m}id AS id, ${m}type AS type, ${m}content AS content, ${m}content_hash AS contentHash,
   ${m}linked_entities AS linkedEntities`;

/**
 * Live memories of `agentId` with `seq > afterSeq`, in seq order (the caller keeps the kinds it
 * checks). Driven by the rowid range, so catching up after a batch reads only the rows written since
 * (`+agent_id` keeps the planner off the agent's index, which read every row of the scope once per
 * batch).
 */
export function conflictSourcesAfter(
  sql: SqlExecutor,
  agentId: string,
  afterSeq: number,
  limit: number,
): ConflictSourceRow[] {
  return sql.all<ConflictSourceRow>(
    raw(
      `SELECT ${columns('')} FROM memories
       WHERE seq > ? AND +agent_id = ? AND is_deleted = 0 ORDER BY seq LIMIT ?`,
      afterSeq,
      agentId,
      limit,
    ),
  );
}

/** The live memories of `agentId` among `ids` (any kind; unordered). */
export function conflictSourcesOf(sql: SqlExecutor, agentId: string, ids: readonly string[]): ConflictSourceRow[] {
  if (ids.length === 0) return [];
  return sql.all<ConflictSourceRow>(
    raw(
      `SELECT ${columns('m.')}
       FROM json_each(?) AS wanted CROSS JOIN memories AS m ON m.id = wanted.value
       WHERE m.agent_id = ? AND m.is_deleted = 0`,
      JSON.stringify(ids),
      agentId,
    ),
  );
}

/** A memory a history row names: every change the memory writer makes writes one. */
export interface ChangedMemory {
  readonly agentId: string;
  readonly memoryId: string;
}

/**
 * The highest `memory_history` seq, read with this connection's `data_version` in one read, so a
 * cache can tell which history rows came after it last looked and whether another connection
 * committed meanwhile.
 */
export function historyMark(sql: SqlExecutor): { readonly version: number; readonly seq: number } {
  // One statement, so both come from one snapshot: read apart, another connection's commit could
  // fall between them and its history rows be counted as seen (or as this connection's own).
  const row = sql.get<{ version: number; seq: number | null }>(
    raw('SELECT data_version AS version, (SELECT max(seq) FROM memory_history) AS seq FROM pragma_data_version'),
  );
  return { version: row?.version ?? 0, seq: row?.seq ?? 0 };
}

/** The memories changed by history rows with `afterSeq < seq <= toSeq` (a rowid range). */
export function memoryChangesBetween(sql: SqlExecutor, afterSeq: number, toSeq: number): ChangedMemory[] {
  return sql.all<ChangedMemory>(
    raw(
      'SELECT agent_id AS agentId, memory_id AS memoryId FROM memory_history WHERE seq > ? AND seq <= ?',
      afterSeq,
      toSeq,
    ),
  );
}

/**
 * SQLite's `data_version` of this connection: it changes when another connection (another process)
 * commits changes (a checkpoint does not), so a cache of the file's content can tell it may be stale.
 */
export function dataVersion(sql: SqlExecutor): number {
  return sql.get<{ data_version: number }>(raw('PRAGMA data_version'))?.data_version ?? 0;
}
