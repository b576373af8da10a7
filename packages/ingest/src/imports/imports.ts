import { createWriteStream } from 'node:fs';
import { type FileHandle, open, rm, stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { agentIdSchema, labelSchema, type MemoryConfig, MemoryError, parseInput, yieldToEventLoop } from '@memory/core';
import { type Job, type JobContext, PermanentJobError, type Queue } from '@memory/queue';
import {
  findImportJob,
  type ImportJobRow,
  type ImportRecordRow,
  type ImportStatus,
  importCounters,
  insertImportJob,
  inventoryRecord,
  listImportRecords,
  markDerivedForReview,
  nextPendingRecords,
  type RecordOutcome,
  raw,
  type SqlExecutor,
  type Store,
  settleRecord,
  updateImportJob,
} from '@memory/store';
import { z } from 'zod';
import { scanLines } from './line-scanner.js';
import { parseRecord } from './record.js';
import { writeImportedRecord } from './write-record.js';

export const TRANSCRIPT_IMPORT_JOB = 'transcript_import';

const isStream = (value: unknown): value is AsyncIterable<Uint8Array | string> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function';

const startSchema = z
  .strictObject({
    /** The scope every imported transcript lands in, whatever agent_id the export carries. */
    agentId: agentIdSchema,
    /** Absolute path of a signet-export v1 JSONL file. It is read by byte offset, never whole. */
    file: z.string().min(1).max(4096).refine(isAbsolute, 'file must be an absolute path').optional(),
    /** The export as a stream (a Node readable or any async iterable of bytes), spooled to `imports.spoolDirectory` first. */
    stream: z
      .custom<AsyncIterable<Uint8Array | string>>(isStream, 'stream must be a readable stream or async iterable')
      .optional(),
    /** What to do with a record already imported into this scope: report it as a duplicate. @default 'skip' */
    duplicateMode: z.literal('skip', { error: "duplicateMode supports 'skip' (report duplicates)" }).optional(),
  })
  .refine((s) => (s.file === undefined) !== (s.stream === undefined), 'give exactly one of file or stream');
/** An import by id, optionally checked against its agent scope; a bare id string is accepted too. */
const refSchema = z.preprocess(
  (value) => (typeof value === 'string' ? { jobId: value } : value),
  z.strictObject({ jobId: labelSchema(128, 'jobId'), agentId: agentIdSchema.optional() }),
);
const recordsSchema = z.strictObject({
  jobId: labelSchema(128, 'jobId'),
  outcome: z.enum(['pending', 'imported', 'duplicate', 'rejected']).optional(),
  /** Records after this line number (paging). */
  afterLine: z.number().int().min(-1).optional(),
  /** @default 100 */
  limit: z.number().int().min(1).max(1000).optional(),
});

export type StartImportInput = z.input<typeof startSchema>;
/** An import by id; with `agentId`, only if it belongs to that scope. */
export interface ImportRef {
  readonly jobId: string;
  readonly agentId?: string;
}
export type ListImportRecordsInput = z.input<typeof recordsSchema>;

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

const STOPPED: readonly ImportStatus[] = [
  'paused',
  'cancelled',
  'removed',
  'completed',
  'completed_with_rejections',
  'failed',
];

/** Signet-export v1 import: durable, resumable, one outcome per non-blank line. */
export function createImports(deps: { store: Store; queue: Queue; config: MemoryConfig }) {
  const { store, queue, config } = deps;
  const limits = config.imports;

  const view = (sql: SqlExecutor, row: ImportJobRow): ImportStatusView => {
    const c = importCounters(sql, row.id);
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
  };

  const current = (id: string): ImportJobRow | undefined => store.read((sql) => findImportJob(sql, id));

  // The import row names the one queue job allowed to work on it: a run whose job is no longer the
  // named one (the import was paused and resumed meanwhile) stops at its next batch boundary.
  const enqueueRun = (sql: SqlExecutor, id: string, agentId: string): void => {
    const job = queue.enqueue({ jobType: TRANSCRIPT_IMPORT_JOB, payload: { importId: id }, agentId });
    updateImportJob(sql, id, { jobId: job.id }, store.clock.now());
  };
  const owns = (live: ImportJobRow | undefined, jobId: string): live is ImportJobRow =>
    live?.status === 'running' && live.job_id === jobId;

  /** Locates every non-blank line, checkpointing the byte offset with each batch of records. */
  async function inventory(row: ImportJobRow, jobId: string, signal: AbortSignal): Promise<boolean> {
    let lineNo = row.next_line;
    let batch: Array<{ lineNo: number; offset: number; length: number; hash: string; next: number }> = [];
    const flush = (done: boolean, offset: number): boolean =>
      store.write((sql) => {
        const now = store.clock.now();
        if (!owns(findImportJob(sql, row.id), jobId)) return false;
        for (const line of batch) {
          const oversized = line.length > limits.maxRecordBytes;
          inventoryRecord(sql, {
            importId: row.id,
            lineNo: line.lineNo,
            offset: line.offset,
            length: line.length,
            rawHash: line.hash,
            outcome: oversized ? 'rejected' : 'pending',
            reason: oversized ? 'oversized_record' : null,
            now,
          });
        }
        updateImportJob(
          sql,
          row.id,
          { inventoryOffset: offset, nextLine: lineNo, ...(done ? { inventoryDone: true } : {}) },
          now,
        );
        batch = [];
        return true;
      });
    let offset = row.inventory_offset;
    for await (const line of scanLines(row.source_path, row.inventory_offset, signal)) {
      batch.push({ lineNo: lineNo++, ...line });
      offset = line.next;
      if (batch.length >= limits.inventoryBatchLines) {
        if (!flush(false, offset)) return false;
        await yieldToEventLoop();
      }
    }
    return flush(true, offset);
  }

  async function readLine(handle: FileHandle, record: ImportRecordRow): Promise<string> {
    const buffer = Buffer.alloc(record.byte_length);
    const { bytesRead } = await handle.read(buffer, 0, record.byte_length, record.byte_offset);
    return buffer.subarray(0, bytesRead).toString('utf8');
  }

  /** Settles pending records in batches (25 records / 8 MiB): outcomes and evidence commit together. */
  async function process(row: ImportJobRow, jobId: string, signal: AbortSignal): Promise<boolean> {
    const handle = await open(row.source_path, 'r');
    try {
      return await processWith(handle, row, jobId, signal);
    } finally {
      await handle.close();
    }
  }

  async function processWith(
    handle: FileHandle,
    row: ImportJobRow,
    jobId: string,
    signal: AbortSignal,
  ): Promise<boolean> {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const pending = store.read((sql) => nextPendingRecords(sql, row.id, limits.batchRecords));
      if (pending.length === 0) return true;
      const batch: Array<{ record: ImportRecordRow; line: string }> = [];
      let bytes = 0;
      for (const record of pending) {
        if (batch.length > 0 && bytes + record.byte_length > limits.batchBytes) break;
        batch.push({ record, line: await readLine(handle, record) });
        bytes += record.byte_length;
      }
      const parsed = batch.map(({ record, line }) => ({ record, result: parseRecord(line, limits) }));
      const proceed = store.write((sql) => {
        if (!owns(findImportJob(sql, row.id), jobId)) return false;
        const now = store.clock.now();
        for (const { record, result } of parsed) {
          if (!result.ok) {
            settleRecord(sql, {
              importId: row.id,
              lineNo: record.line_no,
              outcome: 'rejected',
              reason: result.reason,
              recordId: result.id ?? null,
              sessionKey: null,
              messageCount: null,
              now,
            });
            continue;
          }
          const written = writeImportedRecord(sql, row, result.record, now);
          settleRecord(sql, {
            importId: row.id,
            lineNo: record.line_no,
            outcome: written.outcome,
            reason: null,
            recordId: result.record.id,
            sessionKey: written.sessionKey,
            messageCount: result.record.messageCount,
            now,
          });
        }
        return true;
      });
      if (!proceed) return false;
      await yieldToEventLoop();
    }
  }

  async function run(job: Job, context: JobContext): Promise<unknown> {
    const importId = (job.payload as { importId?: unknown }).importId;
    if (typeof importId !== 'string') throw new PermanentJobError('transcript_import payload needs importId');
    const row = current(importId);
    if (!row || STOPPED.includes(row.status) || row.job_id !== job.id) return { skipped: row?.status ?? 'missing' };
    const size = await stat(row.source_path).then(
      (s) => s.size,
      () => -1,
    );
    if (size !== row.file_size) {
      const message =
        size < 0
          ? `import file ${row.source_path} is gone`
          : `import file ${row.source_path} changed since the import started`;
      store.write((sql) => updateImportJob(sql, row.id, { status: 'failed', error: message }, store.clock.now()));
      throw new PermanentJobError(message);
    }
    const started = store.write((sql) => {
      const live = findImportJob(sql, row.id);
      if (!live || live.job_id !== job.id || STOPPED.includes(live.status)) return false;
      updateImportJob(sql, row.id, { status: 'running', error: null }, store.clock.now());
      return true;
    });
    if (!started) return { stopped: true };
    const running = { ...row, status: 'running' as const };
    if (row.inventory_done === 0 && !(await inventory(running, job.id, context.signal))) return { stopped: true };
    if (!(await process(running, job.id, context.signal))) return { stopped: true };
    return store.write((sql) => {
      if (!owns(findImportJob(sql, row.id), job.id)) return { stopped: true };
      const counters = importCounters(sql, row.id);
      const now = store.clock.now();
      updateImportJob(
        sql,
        row.id,
        { status: counters.rejected > 0 ? 'completed_with_rejections' : 'completed', completedAt: now },
        now,
      );
      return counters;
    });
  }

  const setStatus = (
    input: unknown,
    operation: string,
    from: readonly ImportStatus[],
    to: ImportStatus,
    after?: (sql: SqlExecutor, row: ImportJobRow) => void,
  ): ImportStatusView => {
    const { jobId, agentId } = parseInput(refSchema, input, operation);
    return store.write((sql) => {
      const row = findImportJob(sql, jobId, agentId);
      if (!row) throw new MemoryError('NOT_FOUND', `no import ${jobId}`, { details: { jobId } });
      if (!from.includes(row.status))
        throw new MemoryError('CONFLICT', `import ${jobId} is ${row.status}; ${operation} needs ${from.join(' or ')}`, {
          details: { jobId, status: row.status },
        });
      updateImportJob(sql, jobId, { status: to }, store.clock.now());
      after?.(sql, row);
      const updated = findImportJob(sql, jobId);
      if (!updated) throw new MemoryError('NOT_FOUND', `no import ${jobId}`);
      return view(sql, updated);
    });
  };

  /** Writes a streamed export to the spool directory, so the import can resume by byte offset. */
  async function spool(stream: AsyncIterable<Uint8Array | string>, id: string): Promise<string> {
    const directory = limits.spoolDirectory;
    if (!directory) {
      throw new MemoryError(
        'INVALID_INPUT',
        'importing from a stream needs config.imports.spoolDirectory (where the export is written first)',
      );
    }
    const path = join(directory, `import-${id}.jsonl`);
    try {
      await pipeline(Readable.from(stream), createWriteStream(path, { flags: 'wx' }));
    } catch (error) {
      await rm(path, { force: true });
      throw new MemoryError(
        'STORAGE_ERROR',
        `could not spool the import stream to ${path}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    return path;
  }

  return {
    run,
    /** Starts an import: records the file and queues the job. Returns the import's id. */
    async start(input: unknown): Promise<{ jobId: string }> {
      const request = parseInput(startSchema, input, 'imports.start');
      const id = store.ids.next();
      const path = request.stream ? await spool(request.stream, id) : (request.file ?? '');
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile())
        throw new MemoryError('INVALID_INPUT', `import file ${path} does not exist or is not a file`, {
          details: { file: path },
        });
      store.write((sql) => {
        insertImportJob(sql, {
          id,
          agentId: request.agentId,
          sourcePath: path,
          fileSize: info.size,
          now: store.clock.now(),
        });
        enqueueRun(sql, id, request.agentId);
      });
      return { jobId: id };
    },
    status(input: unknown): ImportStatusView | undefined {
      const { jobId, agentId } = parseInput(refSchema, input, 'imports.status');
      return store.read((sql) => {
        const row = findImportJob(sql, jobId, agentId);
        return row ? view(sql, row) : undefined;
      });
    },
    records(input: unknown): ImportRecordView[] {
      const request = parseInput(recordsSchema, input, 'imports.records');
      return store
        .read((sql) =>
          listImportRecords(sql, request.jobId, {
            outcome: request.outcome,
            afterLine: request.afterLine,
            limit: request.limit ?? 100,
          }),
        )
        .map((r) => ({
          line: r.line_no,
          outcome: r.outcome,
          reason: r.reason,
          recordId: r.record_id,
          sessionKey: r.session_key,
          messageCount: r.message_count,
          byteOffset: r.byte_offset,
        }));
    },
    /** Stops at the next batch boundary; what was committed stays. */
    pause: (input: unknown) => setStatus(input, 'imports.pause', ['queued', 'running'], 'paused'),
    /** Continues a paused import from its checkpoint. */
    resume: (input: unknown) =>
      setStatus(input, 'imports.resume', ['paused'], 'queued', (sql, row) => enqueueRun(sql, row.id, row.agent_id)),
    /** Stops for good at the next batch boundary; committed records stay (remove them with removeSource). */
    cancel: (input: unknown) =>
      setStatus(input, 'imports.cancel', ['queued', 'running', 'paused'], 'cancelled', (_sql, row) => {
        if (row.job_id) queue.cancel({ ids: [row.job_id], apply: true });
      }),
    /**
     * Purges what an import brought in (sessions, turns and their search index), keeping a tombstone
     * per removed record (source id and time, no content). Stops the import first if it is running.
     */
    removeSource(input: unknown): { removedSessions: number } {
      const { jobId, agentId } = parseInput(refSchema, input, 'imports.removeSource');
      return store.write((sql) => {
        const row = findImportJob(sql, jobId, agentId);
        if (!row) throw new MemoryError('NOT_FOUND', `no import ${jobId}`, { details: { jobId } });
        const now = store.clock.now();
        if (row.job_id) queue.cancel({ ids: [row.job_id], apply: true });
        sql.run(
          raw(
            `INSERT OR REPLACE INTO import_tombstones (agent_id, source_record_id, import_id, removed_at)
             SELECT agent_id, source_record_id, ?, ? FROM session_transcripts WHERE agent_id = ? AND source_id = ?`,
            jobId,
            now,
            row.agent_id,
            `import:${jobId}`,
          ),
        );
        // Knowledge distilled from these conversations is marked for review before they go.
        const refs = sql
          .all<{ session_key: string; source_record_id: string | null }>(
            raw(
              'SELECT session_key, source_record_id FROM session_transcripts WHERE agent_id = ? AND source_id = ?',
              row.agent_id,
              `import:${jobId}`,
            ),
          )
          .flatMap((s) => [
            `transcript:${s.session_key}`,
            ...(s.source_record_id ? [`import:${s.source_record_id}`] : []),
          ]);
        markDerivedForReview(sql, row.agent_id, refs, `its evidence was removed with import ${jobId}`, now, () =>
          store.ids.next(),
        );
        const removed = sql.run(
          raw('DELETE FROM session_transcripts WHERE agent_id = ? AND source_id = ?', row.agent_id, `import:${jobId}`),
        ).changes;
        updateImportJob(sql, jobId, { status: 'removed' }, now);
        return { removedSessions: removed };
      });
    },
  };
}

export type Imports = ReturnType<typeof createImports>;
