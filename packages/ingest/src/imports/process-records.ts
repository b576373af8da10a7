import { type FileHandle, open } from 'node:fs/promises';
import { yieldToEventLoop } from '@memory/core';
import {
  type ImportJobRow,
  type ImportRecordRow,
  nextPendingRecords,
  type SqlExecutor,
  settleRecord,
} from '@memory/store';
import { type ImportsContext, stillOwns } from './context.js';
import { type ParsedRecord, parseRecord } from './record.js';
import { writeImportedRecord } from './write-record.js';

interface ParsedLine {
  readonly record: ImportRecordRow;
  readonly result: ParsedRecord;
}

/**
 * Settles the import's pending records in batches (`imports.batchRecords` records or
 * `imports.batchBytes` bytes): each batch's outcomes and the evidence it writes commit together, so
 * a crash resumes at the first unsettled line. Returns false when the run no longer owns the import.
 */
export async function processRecords(
  ctx: ImportsContext,
  row: ImportJobRow,
  jobId: string,
  signal: AbortSignal,
): Promise<boolean> {
  const handle = await open(row.source_path, 'r');
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      const batch = await readBatch(ctx, handle, row.id);
      if (batch.length === 0) return true;
      const proceed = ctx.store.write((sql) => {
        if (!stillOwns(sql, row.id, jobId)) return false;
        const now = ctx.store.clock.now();
        for (const line of batch) settle(sql, row, line, now);
        return true;
      });
      if (!proceed) return false;
      await yieldToEventLoop();
    }
  } finally {
    await handle.close();
  }
}

/** The next pending records, read and parsed outside any transaction; at least one even if oversized. */
async function readBatch(ctx: ImportsContext, handle: FileHandle, importId: string): Promise<ParsedLine[]> {
  const { limits } = ctx;
  const pending = ctx.store.read((sql) => nextPendingRecords(sql, importId, limits.batchRecords));
  const batch: ParsedLine[] = [];
  let bytes = 0;
  for (const record of pending) {
    if (batch.length > 0 && bytes + record.byte_length > limits.batchBytes) break;
    batch.push({ record, result: parseRecord(await readLine(handle, record), limits) });
    bytes += record.byte_length;
  }
  return batch;
}

async function readLine(handle: FileHandle, record: ImportRecordRow): Promise<string> {
  const buffer = Buffer.alloc(record.byte_length);
  const { bytesRead } = await handle.read(buffer, 0, record.byte_length, record.byte_offset);
  return buffer.subarray(0, bytesRead).toString('utf8');
}

/** Records one line's outcome; a valid record is written as a transcript first (or found a duplicate). */
function settle(sql: SqlExecutor, row: ImportJobRow, { record, result }: ParsedLine, now: number): void {
  const common = { importId: row.id, lineNo: record.line_no, now };
  if (!result.ok) {
    settleRecord(sql, {
      ...common,
      outcome: 'rejected',
      reason: result.reason,
      recordId: result.id ?? null,
      sessionKey: null,
      messageCount: null,
    });
    return;
  }
  const written = writeImportedRecord(sql, row, result.record, now);
  settleRecord(sql, {
    ...common,
    outcome: written.outcome,
    reason: null,
    recordId: result.record.id,
    sessionKey: written.sessionKey,
    messageCount: result.record.messageCount,
  });
}
