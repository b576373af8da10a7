import { raw, type SqlExecutor } from '../internal/sql.js';

export type ImportStatus =
  | 'queued'
  | 'running'
  | 'paused'
  | 'completed'
  | 'completed_with_rejections'
  | 'failed'
  | 'cancelled'
  | 'removed';
export type RecordOutcome = 'pending' | 'imported' | 'duplicate' | 'rejected';

export interface ImportJobRow {
  readonly id: string;
  readonly agent_id: string;
  readonly job_id: string | null;
  readonly status: ImportStatus;
  readonly source_path: string;
  readonly file_size: number | null;
  readonly duplicate_mode: string;
  readonly inventory_offset: number;
  readonly inventory_done: 0 | 1;
  readonly next_line: number;
  readonly error: string | null;
  readonly created_at: number;
  readonly updated_at: number;
  readonly completed_at: number | null;
}

export interface ImportRecordRow {
  readonly import_id: string;
  readonly line_no: number;
  readonly byte_offset: number;
  readonly byte_length: number;
  readonly raw_hash: string | null;
  readonly outcome: RecordOutcome;
  readonly reason: string | null;
  readonly record_id: string | null;
  readonly session_key: string | null;
  readonly message_count: number | null;
  readonly updated_at: number;
}

export function insertImportJob(
  sql: SqlExecutor,
  row: { id: string; agentId: string; sourcePath: string; fileSize: number; now: number },
): void {
  sql.run(
    raw(
      `INSERT INTO import_jobs (id, agent_id, status, source_path, file_size, created_at, updated_at) VALUES (?, ?, 'queued', ?, ?, ?, ?)`,
      row.id,
      row.agentId,
      row.sourcePath,
      row.fileSize,
      row.now,
      row.now,
    ),
  );
}

/** An import by id, whatever its scope: for the import's own job, which names it in its payload. */
export function findImportJob(sql: SqlExecutor, id: string): ImportJobRow | undefined {
  return sql.get<ImportJobRow>(raw('SELECT * FROM import_jobs WHERE id = ?', id));
}

/** An import in `agentId`'s scope; another scope's import is not found. */
export function findScopedImportJob(sql: SqlExecutor, agentId: string, id: string): ImportJobRow | undefined {
  return sql.get<ImportJobRow>(raw('SELECT * FROM import_jobs WHERE id = ? AND agent_id = ?', id, agentId));
}

/**
 * Marks the import run by queue job `jobId` as `failed` with `error`, if that job still runs it
 * (queued or running). Returns whether an import was marked.
 */
export function failImportOfJob(sql: SqlExecutor, jobId: string, error: string, now: number): boolean {
  return (
    sql.run(
      raw(
        `UPDATE import_jobs SET status = 'failed', error = ?, updated_at = ?
         WHERE job_id = ? AND status IN ('queued', 'running')`,
        error,
        now,
        jobId,
      ),
    ).changes > 0
  );
}

export function updateImportJob(
  sql: SqlExecutor,
  id: string,
  patch: {
    status?: ImportStatus;
    jobId?: string | null;
    inventoryOffset?: number;
    inventoryDone?: boolean;
    nextLine?: number;
    error?: string | null;
    completedAt?: number | null;
  },
  now: number,
): void {
  sql.run(
    raw(
      `UPDATE import_jobs SET
         status = coalesce(?, status),
         job_id = CASE WHEN ? THEN ? ELSE job_id END,
         inventory_offset = coalesce(?, inventory_offset),
         inventory_done = coalesce(?, inventory_done),
         next_line = coalesce(?, next_line),
         error = CASE WHEN ? THEN ? ELSE error END,
         completed_at = CASE WHEN ? THEN ? ELSE completed_at END,
         updated_at = ?
       WHERE id = ?`,
      patch.status ?? null,
      patch.jobId !== undefined ? 1 : 0,
      patch.jobId ?? null,
      patch.inventoryOffset ?? null,
      patch.inventoryDone === undefined ? null : patch.inventoryDone ? 1 : 0,
      patch.nextLine ?? null,
      patch.error !== undefined ? 1 : 0,
      patch.error ?? null,
      patch.completedAt !== undefined ? 1 : 0,
      patch.completedAt ?? null,
      now,
      id,
    ),
  );
}

/** Records a line found by the inventory (idempotent: a line is inventoried once). */
export function inventoryRecord(
  sql: SqlExecutor,
  row: {
    importId: string;
    lineNo: number;
    offset: number;
    length: number;
    rawHash: string | null;
    outcome: RecordOutcome;
    reason: string | null;
    now: number;
  },
): void {
  sql.run(
    raw(
      `INSERT OR IGNORE INTO import_records (import_id, line_no, byte_offset, byte_length, raw_hash, outcome, reason, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      row.importId,
      row.lineNo,
      row.offset,
      row.length,
      row.rawHash,
      row.outcome,
      row.reason,
      row.now,
    ),
  );
}

export function nextPendingRecords(sql: SqlExecutor, importId: string, limit: number): ImportRecordRow[] {
  return sql.all<ImportRecordRow>(
    raw(
      "SELECT * FROM import_records WHERE import_id = ? AND outcome = 'pending' ORDER BY line_no LIMIT ?",
      importId,
      limit,
    ),
  );
}

export function settleRecord(
  sql: SqlExecutor,
  row: {
    importId: string;
    lineNo: number;
    outcome: Exclude<RecordOutcome, 'pending'>;
    reason: string | null;
    recordId: string | null;
    sessionKey: string | null;
    messageCount: number | null;
    now: number;
  },
): void {
  sql.run(
    raw(
      `UPDATE import_records SET outcome = ?, reason = ?, record_id = ?, session_key = ?, message_count = ?, updated_at = ?
       WHERE import_id = ? AND line_no = ? AND outcome = 'pending'`,
      row.outcome,
      row.reason,
      row.recordId,
      row.sessionKey,
      row.messageCount,
      row.now,
      row.importId,
      row.lineNo,
    ),
  );
}

export function importCounters(sql: SqlExecutor, importId: string): Record<RecordOutcome, number> {
  const counts = { pending: 0, imported: 0, duplicate: 0, rejected: 0 };
  for (const r of sql.all<{ outcome: RecordOutcome; n: number }>(
    raw('SELECT outcome, count(*) AS n FROM import_records WHERE import_id = ? GROUP BY outcome', importId),
  )) {
    counts[r.outcome] = r.n;
  }
  return counts;
}

export function listImportRecords(
  sql: SqlExecutor,
  importId: string,
  filter: { outcome?: RecordOutcome | undefined; afterLine?: number | undefined; limit: number },
): ImportRecordRow[] {
  return sql.all<ImportRecordRow>(
    raw(
      `SELECT * FROM import_records WHERE import_id = ? AND (? IS NULL OR outcome = ?) AND line_no > ? ORDER BY line_no LIMIT ?`,
      importId,
      filter.outcome ?? null,
      filter.outcome ?? null,
      filter.afterLine ?? -1,
      filter.limit,
    ),
  );
}

/**
 * Records a tombstone (source record id and time, no content) for every session an import brought
 * into `agentId`'s scope, before they are removed. A record removed again keeps its latest
 * tombstone: SQLite's `INSERT OR REPLACE` (an upsert on the primary key in another dialect).
 */
export function tombstoneImportedTranscripts(
  sql: SqlExecutor,
  row: { agentId: string; importId: string; sourceId: string; now: number },
): void {
  sql.run(
    raw(
      `INSERT OR REPLACE INTO import_tombstones (agent_id, source_record_id, import_id, removed_at)
       SELECT agent_id, source_record_id, ?, ? FROM session_transcripts WHERE agent_id = ? AND source_id = ?`,
      row.importId,
      row.now,
      row.agentId,
      row.sourceId,
    ),
  );
}
