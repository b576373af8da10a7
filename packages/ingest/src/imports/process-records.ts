import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { isMemoryError, yieldToEventLoop } from '@memory/core';
import {
  type ImportJobRow,
  type ImportRecordRow,
  nextPendingRecords,
  type SqlExecutor,
  settleRecord,
} from '@memory/store';
import { type ImportsContext, stillOwns } from './context.js';
import { isExportLine, type ParsedExportLine, parseExportRecord, writeExportRecord } from './export-record.js';
import { type ParsedRecord, parseRecord, parseRecordValue } from './record.js';
import { type WrittenRecord, writeImportedRecord } from './write-record.js';

interface ParsedLine {
  readonly record: ImportRecordRow;
  readonly result: ParsedRecord | ParsedExportLine;
}

/** A line of either format: `engine.export` records carry a `kind`; anything else is signet-export v1. */
function parseLine(text: string, limits: ImportsContext['limits']): ParsedRecord | ParsedExportLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return parseRecord(text, limits);
  }
  return isExportLine(value) ? parseExportRecord(value) : parseRecordValue(value, limits);
}

/** How a run's settling ended. */
export type SettleOutcome =
  /** Every record is settled. */
  | { readonly kind: 'done' }
  /** The run no longer owns the import (paused, cancelled, resumed by another run): nothing more written. */
  | { readonly kind: 'stopped' }
  /** The run's time slice is used up: the import continues in a new run. */
  | { readonly kind: 'sliced' }
  /** This line's bytes no longer hash to what the inventory recorded: the file changed in place. */
  | { readonly kind: 'changed'; readonly line: number };

// The database refusing one record's write for something in the record itself (a constraint, a
// value too big or of the wrong type): the record is rejected and its batch goes on. Anything else
// (busy, disk full, I/O) fails the batch, which is retried.
const RECORD_FAILURE = /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/;

/**
 * Settles the import's pending records in batches (`imports.batchRecords` records or
 * `imports.batchBytes` bytes): each batch's outcomes and the evidence it writes commit together, so
 * a crash resumes at the first unsettled line. Each line is checked against the hash the inventory
 * recorded before it is written; the run stops at the first line that changed. Stops at a batch
 * boundary once the clock passes `sliceEnd`.
 */
export async function processRecords(
  ctx: ImportsContext,
  row: ImportJobRow,
  jobId: string,
  signal: AbortSignal,
  sliceEnd: number,
): Promise<SettleOutcome> {
  const handle = await open(row.source_path, 'r');
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (ctx.store.clock.now() >= sliceEnd) return { kind: 'sliced' };
      const { lines, changed } = await readBatch(ctx, handle, row.id);
      if (lines.length === 0 && changed === undefined) return { kind: 'done' };
      const proceed = ctx.store.write((sql) => {
        if (!stillOwns(sql, row.id, jobId)) return false;
        const now = ctx.store.clock.now();
        for (const line of lines) settle(ctx, sql, row, line, now);
        return true;
      });
      if (!proceed) return { kind: 'stopped' };
      if (changed !== undefined) return { kind: 'changed', line: changed };
      await yieldToEventLoop();
    }
  } finally {
    await handle.close();
  }
}

/**
 * The next pending records, read, verified and parsed outside any transaction; at least one even if
 * oversized. A line whose bytes no longer match its recorded hash ends the batch (`changed`).
 */
async function readBatch(
  ctx: ImportsContext,
  handle: FileHandle,
  importId: string,
): Promise<{ lines: ParsedLine[]; changed?: number }> {
  const { limits } = ctx;
  const pending = ctx.store.read((sql) => nextPendingRecords(sql, importId, limits.batchRecords));
  const lines: ParsedLine[] = [];
  let bytes = 0;
  for (const record of pending) {
    if (lines.length > 0 && bytes + record.byte_length > limits.batchBytes) break;
    const buffer = await readLine(handle, record);
    if (buffer === undefined) return { lines, changed: record.line_no };
    lines.push({ record, result: parseLine(buffer.toString('utf8'), limits) });
    bytes += record.byte_length;
  }
  return { lines };
}

/** The line's bytes, or undefined when they are not the bytes the inventory hashed. */
async function readLine(handle: FileHandle, record: ImportRecordRow): Promise<Buffer | undefined> {
  const buffer = Buffer.alloc(record.byte_length);
  const { bytesRead } = await handle.read(buffer, 0, record.byte_length, record.byte_offset);
  if (bytesRead !== record.byte_length) return undefined;
  if (record.raw_hash !== null && createHash('sha256').update(buffer).digest('hex') !== record.raw_hash)
    return undefined;
  return buffer;
}

/**
 * Records one line's outcome; a valid record is written as a transcript first (or found a
 * duplicate), in its own savepoint: a record the database refuses is rejected alone.
 */
function settle(ctx: ImportsContext, sql: SqlExecutor, row: ImportJobRow, line: ParsedLine, now: number): void {
  const { record, result } = line;
  const common = { importId: row.id, lineNo: record.line_no, now };
  const reject = (reason: string, recordId: string | null) =>
    settleRecord(sql, { ...common, outcome: 'rejected', reason, recordId, sessionKey: null, messageCount: null });
  if (!result.ok) {
    reject(result.reason, 'id' in result ? (result.id ?? null) : null);
    return;
  }
  if ('export' in result) {
    const done = writeExportInSavepoint(ctx, row, result);
    if (done.outcome === 'rejected') reject(done.reason, result.id);
    else
      settleRecord(sql, {
        ...common,
        outcome: done.outcome,
        reason: null,
        recordId: result.id,
        sessionKey: null,
        messageCount: null,
      });
    return;
  }
  const written = writeInSavepoint(ctx, row, result, now);
  if (written.outcome === 'rejected') {
    reject(written.reason, result.record.id);
    return;
  }
  settleRecord(sql, {
    ...common,
    outcome: written.outcome,
    reason: null,
    recordId: result.record.id,
    sessionKey: written.sessionKey,
    messageCount: result.record.messageCount,
  });
}

function writeInSavepoint(
  ctx: ImportsContext,
  row: ImportJobRow,
  result: Extract<ParsedRecord, { ok: true }>,
  now: number,
): WrittenRecord | { readonly outcome: 'rejected'; readonly reason: 'write_failed' } {
  try {
    // A nested write is a savepoint: a refused record rolls back alone.
    return ctx.store.write((inner) => writeImportedRecord(inner, row, result.record, now));
  } catch (error) {
    const code = isMemoryError(error, 'STORAGE_ERROR') ? error.details['sqliteCode'] : undefined;
    if (typeof code === 'string' && RECORD_FAILURE.test(code)) {
      ctx.store.logger.warn('import record refused by the database; rejected', {
        importId: row.id,
        recordId: result.record.id,
        sqliteCode: code,
      });
      return { outcome: 'rejected', reason: 'write_failed' };
    }
    throw error;
  }
}

/**
 * Writes an export record in its own savepoint. A record the database refuses (a constraint) or
 * that names a column the table does not have is rejected alone; other failures fail the batch.
 */
function writeExportInSavepoint(
  ctx: ImportsContext,
  row: ImportJobRow,
  result: Extract<ParsedExportLine, { ok: true }>,
): { outcome: 'imported' | 'duplicate' } | { outcome: 'rejected'; reason: string } {
  try {
    return ctx.store.write((inner) => writeExportRecord(inner, row.agent_id, result.export, ctx.writeCategory));
  } catch (error) {
    if (isMemoryError(error, 'INVALID_INPUT')) return { outcome: 'rejected', reason: 'schema_violation' };
    const code = isMemoryError(error, 'STORAGE_ERROR') ? error.details['sqliteCode'] : undefined;
    if (typeof code === 'string' && RECORD_FAILURE.test(code)) return { outcome: 'rejected', reason: 'write_failed' };
    throw error;
  }
}
