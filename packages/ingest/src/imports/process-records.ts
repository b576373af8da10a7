import { createHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { isMemoryError, yieldToEventLoop } from '@memory/core';
import {
  type ImportJobRow,
  type ImportRecordRow,
  isRecordRefusal,
  nextPendingRecordsProgram,
  type Program,
  recordSavepointProgram,
  type ScopeColumns,
  settleRecordProgram,
  turnScopeLockKeys,
} from '@memory/store';
import { type ImportsContext, stillOwns } from './context.js';
import {
  isExportLine,
  type ParsedExportLine,
  parseExportRecord,
  type WrittenExport,
  writeExportRecordProgram,
} from './export-record.js';
import { type ParsedRecord, parseRecord, parseRecordValue } from './record.js';
import { type WrittenRecord, writeImportedRecordProgram } from './write-record.js';

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
  // Each table's columns, read once for the run (an export record's rows are checked against them).
  const columns: ScopeColumns = new Map();
  try {
    for (;;) {
      if (signal.aborted) throw signal.reason;
      if (ctx.store.clock.now() >= sliceEnd) return { kind: 'sliced' };
      const { lines, changed } = await readBatch(ctx, handle, row.id);
      if (lines.length === 0 && changed === undefined) return { kind: 'done' };
      // Records the database refused, logged once the batch commits (a PostgreSQL write may run twice).
      let refused: Refusal[] = [];
      const proceed = await ctx.store.db.write(
        function* () {
          refused = [];
          if (!(yield* stillOwns(row.id, jobId))) return false;
          const now = ctx.store.clock.now();
          for (const line of lines) yield* settle(ctx, row, line, now, refused, columns);
          return true;
        },
        { lockKeys: turnScopeLockKeys(row.agent_id) },
      );
      for (const { code, ...r } of refused)
        ctx.store.logger.warn('import record refused by the database; rejected', {
          ...r,
          ...(ctx.store.dialect === 'sqlite' ? { sqliteCode: code } : { sqlState: code }),
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
  const pending = await ctx.store.db.read(() => nextPendingRecordsProgram(importId, limits.batchRecords));
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

/** A record the database refused: its import, its id and the database's code. */
interface Refusal {
  readonly importId: string;
  readonly recordId: string;
  readonly code: string;
}

/**
 * Records one line's outcome; a valid record is written as a transcript first (or found a
 * duplicate), in its own savepoint: a record the database refuses is rejected alone.
 */
function* settle(
  ctx: ImportsContext,
  row: ImportJobRow,
  line: ParsedLine,
  now: number,
  refused: Refusal[],
  columns: ScopeColumns,
): Program<void> {
  const { record, result } = line;
  const common = { importId: row.id, lineNo: record.line_no, now };
  const reject = (reason: string, recordId: string | null) =>
    settleRecordProgram({ ...common, outcome: 'rejected', reason, recordId, sessionKey: null, messageCount: null });
  if (!result.ok) {
    yield* reject(result.reason, 'id' in result ? (result.id ?? null) : null);
    return;
  }
  if ('export' in result) {
    const done = yield* writeExportInSavepoint(ctx, row, result, columns);
    if (done.outcome === 'rejected') yield* reject(done.reason, result.id);
    else
      yield* settleRecordProgram({
        ...common,
        outcome: done.outcome,
        reason: null,
        recordId: result.id,
        sessionKey: null,
        messageCount: null,
      });
    return;
  }
  const written = yield* writeInSavepoint(ctx, row, result, now, refused);
  if (written.outcome === 'rejected') {
    yield* reject(written.reason, result.record.id);
    return;
  }
  yield* settleRecordProgram({
    ...common,
    outcome: written.outcome,
    reason: null,
    recordId: result.record.id,
    sessionKey: written.sessionKey,
    messageCount: result.record.messageCount,
  });
}

function* writeInSavepoint(
  ctx: ImportsContext,
  row: ImportJobRow,
  result: Extract<ParsedRecord, { ok: true }>,
  now: number,
  refused: Refusal[],
): Program<WrittenRecord | { readonly outcome: 'rejected'; readonly reason: 'write_failed' }> {
  try {
    return yield* recordSavepointProgram(() => writeImportedRecordProgram(ctx.store.dialect, row, result.record, now));
  } catch (error) {
    const code = isRecordRefusal(error);
    if (code === undefined) throw error;
    refused.push({ importId: row.id, recordId: result.record.id, code });
    return { outcome: 'rejected', reason: 'write_failed' };
  }
}

/**
 * Writes an export record in its own savepoint. A record the database refuses (a constraint) or
 * that names a column the table does not have is rejected alone; other failures fail the batch.
 */
function* writeExportInSavepoint(
  ctx: ImportsContext,
  row: ImportJobRow,
  result: Extract<ParsedExportLine, { ok: true }>,
  columns: ScopeColumns,
): Program<WrittenExport | { outcome: 'rejected'; reason: string }> {
  try {
    return yield* recordSavepointProgram(() =>
      writeExportRecordProgram(ctx.store.dialect, row.agent_id, result.export, ctx.writeCategory, columns),
    );
  } catch (error) {
    if (isMemoryError(error, 'INVALID_INPUT')) return { outcome: 'rejected', reason: 'schema_violation' };
    if (isRecordRefusal(error) !== undefined) return { outcome: 'rejected', reason: 'write_failed' };
    throw error;
  }
}
