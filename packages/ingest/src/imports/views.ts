import {
  type ImportJobRow,
  type ImportRecordRow,
  type ImportStatus,
  importCountersProgram,
  type Program,
  type RecordOutcome,
} from '@memory/store';

export interface ImportCounters {
  readonly total: number;
  readonly imported: number;
  readonly duplicate: number;
  readonly rejected: number;
  readonly pending: number;
}

export interface ImportStatusView {
  readonly jobId: string;
  readonly agentId: string;
  readonly status: ImportStatus;
  readonly file: string;
  readonly counters: ImportCounters;
  /** True once every line of the file has been located. */
  readonly inventoried: boolean;
  readonly error: string | null;
  readonly createdAt: number;
  readonly completedAt: number | null;
}

export interface ImportRecordView {
  readonly line: number;
  readonly outcome: RecordOutcome;
  readonly reason: string | null;
  readonly recordId: string | null;
  readonly sessionKey: string | null;
  readonly messageCount: number | null;
  readonly byteOffset: number;
}

/** An import as the public API returns it, with counters that reconcile (`total` is their sum). */
export function* statusViewProgram(row: ImportJobRow): Program<ImportStatusView> {
  const c = yield* importCountersProgram(row.id);
  return {
    jobId: row.id,
    agentId: row.agent_id,
    status: row.status,
    file: row.source_path,
    counters: { total: c.pending + c.imported + c.duplicate + c.rejected, ...c },
    inventoried: row.inventory_done === 1,
    error: row.error,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/** One line's outcome as the public API returns it. */
export const toRecordView = (r: ImportRecordRow): ImportRecordView => ({
  line: r.line_no,
  outcome: r.outcome,
  reason: r.reason,
  recordId: r.record_id,
  sessionKey: r.session_key,
  messageCount: r.message_count,
  byteOffset: r.byte_offset,
});
