import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';

// Every function here is a program (both dialects) with a synchronous SQLite wrapper for callers
// that still run on an executor.

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

/** Records a new import, `queued`. */
export function insertImportJob(sql: SqlExecutor, row: NewImportJob): void {
  runSqliteProgram(sql, insertImportJobProgram(row));
}

export interface NewImportJob {
  readonly id: string;
  readonly agentId: string;
  readonly sourcePath: string;
  readonly fileSize: number;
  readonly now: number;
}

/** {@link insertImportJob} as a program. */
export function* insertImportJobProgram(row: NewImportJob): Program<void> {
  yield* run(
    queryBuilder.insertInto('import_jobs').values({
      id: row.id,
      agent_id: row.agentId,
      status: 'queued',
      source_path: row.sourcePath,
      file_size: row.fileSize,
      created_at: row.now,
      updated_at: row.now,
    }),
  );
}

/** An import by id, whatever its scope: for the import's own job, which names it in its payload. */
export function findImportJob(sql: SqlExecutor, id: string): ImportJobRow | undefined {
  return runSqliteProgram(sql, findImportJobProgram(id));
}

/** {@link findImportJob} as a program. */
export function findImportJobProgram(id: string): Program<ImportJobRow | undefined> {
  return get<ImportJobRow>(queryBuilder.selectFrom('import_jobs').selectAll().where('id', '=', id));
}

/** An import in `agentId`'s scope; another scope's import is not found. */
export function findScopedImportJob(sql: SqlExecutor, agentId: string, id: string): ImportJobRow | undefined {
  return runSqliteProgram(sql, findScopedImportJobProgram(agentId, id));
}

/** {@link findScopedImportJob} as a program. */
export function findScopedImportJobProgram(agentId: string, id: string): Program<ImportJobRow | undefined> {
  return get<ImportJobRow>(
    queryBuilder.selectFrom('import_jobs').selectAll().where('id', '=', id).where('agent_id', '=', agentId),
  );
}

/**
 * Marks the import run by queue job `jobId` as `failed` with `error`, if that job still runs it
 * (queued or running). Returns whether an import was marked.
 */
export function failImportOfJob(sql: SqlExecutor, jobId: string, error: string, now: number): boolean {
  return runSqliteProgram(sql, failImportOfJobProgram(jobId, error, now));
}

/** {@link failImportOfJob} as a program. */
export function* failImportOfJobProgram(jobId: string, error: string, now: number): Program<boolean> {
  return (
    (yield* run(
      portable(
        `UPDATE import_jobs SET status = 'failed', error = ?, updated_at = ?
         WHERE job_id = ? AND status IN ('queued', 'running')`,
        error,
        now,
        jobId,
      ),
    )).changes > 0
  );
}

/** The fields of an import an update may set; the ones left out keep their value. */
export interface ImportJobPatch {
  status?: ImportStatus;
  jobId?: string | null;
  inventoryOffset?: number;
  inventoryDone?: boolean;
  nextLine?: number;
  error?: string | null;
  completedAt?: number | null;
}

export function updateImportJob(sql: SqlExecutor, id: string, patch: ImportJobPatch, now: number): void {
  runSqliteProgram(sql, updateImportJobProgram(id, patch, now));
}

/** {@link updateImportJob} as a program: sets the fields given and `updated_at`. */
export function* updateImportJobProgram(id: string, patch: ImportJobPatch, now: number): Program<void> {
  yield* run(
    queryBuilder
      .updateTable('import_jobs')
      .set({
        ...(patch.status !== undefined ? { status: patch.status } : {}),
        ...(patch.jobId !== undefined ? { job_id: patch.jobId } : {}),
        ...(patch.inventoryOffset !== undefined ? { inventory_offset: patch.inventoryOffset } : {}),
        ...(patch.inventoryDone !== undefined ? { inventory_done: patch.inventoryDone ? 1 : 0 } : {}),
        ...(patch.nextLine !== undefined ? { next_line: patch.nextLine } : {}),
        ...(patch.error !== undefined ? { error: patch.error } : {}),
        ...(patch.completedAt !== undefined ? { completed_at: patch.completedAt } : {}),
        updated_at: now,
      })
      .where('id', '=', id),
  );
}

/** A line found by the inventory. */
export interface InventoriedLine {
  readonly importId: string;
  readonly lineNo: number;
  readonly offset: number;
  readonly length: number;
  readonly rawHash: string | null;
  readonly outcome: RecordOutcome;
  readonly reason: string | null;
  readonly now: number;
}

const INVENTORY_COLUMNS =
  'INTO import_records (import_id, line_no, byte_offset, byte_length, raw_hash, outcome, reason, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)';
const INVENTORY = portable(`INSERT ${INVENTORY_COLUMNS} ON CONFLICT (import_id, line_no) DO NOTHING`).postgres.sql;

/** Records a line found by the inventory (idempotent: a line is inventoried once). */
export function inventoryRecord(sql: SqlExecutor, row: InventoriedLine): void {
  runSqliteProgram(sql, inventoryRecordProgram(row));
}

/** {@link inventoryRecord} as a program. */
export function* inventoryRecordProgram(row: InventoriedLine): Program<void> {
  const parameters = [row.importId, row.lineNo, row.offset, row.length, row.rawHash, row.outcome, row.reason, row.now];
  yield* run(perDialect({ sql: `INSERT OR IGNORE ${INVENTORY_COLUMNS}`, parameters }, { sql: INVENTORY, parameters }));
}

export function nextPendingRecords(sql: SqlExecutor, importId: string, limit: number): ImportRecordRow[] {
  return runSqliteProgram(sql, nextPendingRecordsProgram(importId, limit));
}

/** {@link nextPendingRecords} as a program: the first `limit` unsettled lines, in line order. */
export function nextPendingRecordsProgram(importId: string, limit: number): Program<ImportRecordRow[]> {
  return all<ImportRecordRow>(
    queryBuilder
      .selectFrom('import_records')
      .selectAll()
      .where('import_id', '=', importId)
      .where('outcome', '=', 'pending')
      .orderBy('line_no')
      .limit(limit),
  );
}

/** One line's outcome. */
export interface SettledLine {
  readonly importId: string;
  readonly lineNo: number;
  readonly outcome: Exclude<RecordOutcome, 'pending'>;
  readonly reason: string | null;
  readonly recordId: string | null;
  readonly sessionKey: string | null;
  readonly messageCount: number | null;
  readonly now: number;
}

export function settleRecord(sql: SqlExecutor, row: SettledLine): void {
  runSqliteProgram(sql, settleRecordProgram(row));
}

/** {@link settleRecord} as a program: a line still pending gets its outcome. */
export function* settleRecordProgram(row: SettledLine): Program<void> {
  yield* run(
    portable(
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
  return runSqliteProgram(sql, importCountersProgram(importId));
}

/** {@link importCounters} as a program: records per outcome. */
export function* importCountersProgram(importId: string): Program<Record<RecordOutcome, number>> {
  const counts = { pending: 0, imported: 0, duplicate: 0, rejected: 0 };
  for (const r of yield* all<{ outcome: RecordOutcome; n: number }>(
    portable('SELECT outcome, count(*) AS n FROM import_records WHERE import_id = ? GROUP BY outcome', importId),
  )) {
    counts[r.outcome] = r.n;
  }
  return counts;
}

/** What {@link listImportRecords} filters and pages on. */
export interface ImportRecordFilter {
  readonly outcome?: RecordOutcome | undefined;
  readonly afterLine?: number | undefined;
  readonly limit: number;
}

export function listImportRecords(sql: SqlExecutor, importId: string, filter: ImportRecordFilter): ImportRecordRow[] {
  return runSqliteProgram(sql, listImportRecordsProgram(importId, filter));
}

/** {@link listImportRecords} as a program. */
export function listImportRecordsProgram(importId: string, filter: ImportRecordFilter): Program<ImportRecordRow[]> {
  let query = queryBuilder.selectFrom('import_records').selectAll().where('import_id', '=', importId);
  if (filter.outcome !== undefined) query = query.where('outcome', '=', filter.outcome);
  return all<ImportRecordRow>(
    query
      .where('line_no', '>', filter.afterLine ?? -1)
      .orderBy('line_no')
      .limit(filter.limit),
  );
}

const TOMBSTONES = `INTO import_tombstones (agent_id, source_record_id, import_id, removed_at)
  SELECT agent_id, source_record_id, ?, ? FROM session_transcripts WHERE agent_id = ? AND source_id = ?`;
const TOMBSTONES_POSTGRES = portable(
  `INSERT ${TOMBSTONES}
   ON CONFLICT (agent_id, source_record_id) DO UPDATE SET import_id = excluded.import_id, removed_at = excluded.removed_at`,
).postgres.sql;

/**
 * Records a tombstone (source record id and time, no content) for every session an import brought
 * into `agentId`'s scope, before they are removed. A record removed again keeps its latest
 * tombstone: SQLite's `INSERT OR REPLACE`, PostgreSQL's upsert on the primary key.
 */
export function tombstoneImportedTranscripts(
  sql: SqlExecutor,
  row: { agentId: string; importId: string; sourceId: string; now: number },
): void {
  runSqliteProgram(sql, tombstoneImportedTranscriptsProgram(row));
}

/** {@link tombstoneImportedTranscripts} as a program. */
export function* tombstoneImportedTranscriptsProgram(row: {
  agentId: string;
  importId: string;
  sourceId: string;
  now: number;
}): Program<void> {
  const parameters = [row.importId, row.now, row.agentId, row.sourceId];
  yield* run(
    perDialect({ sql: `INSERT OR REPLACE ${TOMBSTONES}`, parameters }, { sql: TOMBSTONES_POSTGRES, parameters }),
  );
}

/**
 * Runs `body` in a savepoint of the caller's write, so a record the database refuses is rolled back
 * alone and the batch goes on: on failure the savepoint is rolled back and the error rethrown for
 * the caller to judge ({@link isRecordRefusal}). On PostgreSQL a conflict with another transaction
 * is rethrown the same way, and the store re-runs the whole write.
 */
export function* recordSavepointProgram<R>(body: () => Program<R>): Program<R> {
  yield* run(portable('SAVEPOINT import_record'));
  let value: R;
  try {
    value = yield* body();
  } catch (error) {
    yield* run(portable('ROLLBACK TO SAVEPOINT import_record'));
    yield* run(portable('RELEASE SAVEPOINT import_record'));
    throw error;
  }
  yield* run(portable('RELEASE SAVEPOINT import_record'));
  return value;
}

// The database refusing one record's write for something in the record itself: a constraint, a
// value too big or of the wrong type (SQLite's result codes; PostgreSQL's SQLSTATE classes 23,
// integrity, and 22, data). Anything else (busy, disk full, I/O, a serialization conflict) is not.
const SQLITE_REFUSAL = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/;
const POSTGRES_REFUSAL = /^2[23][0-9A-Z]{3}$/;

/**
 * Whether an error is the database refusing one record (see above), raw from a driver or as the
 * store's `STORAGE_ERROR`. Returns the code that says so, or undefined.
 */
export function isRecordRefusal(error: unknown): string | undefined {
  const details = (error as { details?: Record<string, unknown> } | null)?.details;
  const codes = [(error as { code?: unknown } | null)?.code, details?.['sqliteCode'], details?.['sqlState']];
  for (const code of codes)
    if (typeof code === 'string' && (SQLITE_REFUSAL.test(code) || POSTGRES_REFUSAL.test(code))) return code;
  return undefined;
}
