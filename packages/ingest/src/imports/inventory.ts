import { yieldToEventLoop } from '@memory/core';
import { type ImportJobRow, inventoryRecordProgram, updateImportJobProgram } from '@memory/store';
import { type ImportsContext, stillOwns } from './context.js';
import { scanLines } from './line-scanner.js';

interface LocatedLine {
  readonly lineNo: number;
  readonly offset: number;
  readonly length: number;
  readonly hash: string;
  readonly next: number;
}

/**
 * Locates every non-blank line of the import's file from its checkpoint on, committing each batch
 * of `imports.inventoryBatchLines` records together with the byte offset to resume from. Oversized
 * lines are rejected here, before anything reads them whole. Returns 'stopped' when the run no
 * longer owns the import (paused, cancelled or resumed by another run): nothing of the batch is
 * written; 'sliced' when the clock passed `sliceEnd` at a batch boundary (a new run continues).
 */
export async function inventoryImport(
  ctx: ImportsContext,
  row: ImportJobRow,
  jobId: string,
  signal: AbortSignal,
  sliceEnd: number,
): Promise<'done' | 'stopped' | 'sliced'> {
  let lineNo = row.next_line;
  let offset = row.inventory_offset;
  let batch: LocatedLine[] = [];
  const flush = async (done: boolean): Promise<boolean> => {
    const written = await commitBatch(ctx, row, jobId, batch, { offset, nextLine: lineNo, done });
    batch = [];
    return written;
  };
  for await (const line of scanLines(row.source_path, row.inventory_offset, signal)) {
    batch.push({ lineNo: lineNo++, ...line });
    offset = line.next;
    if (batch.length >= ctx.limits.inventoryBatchLines) {
      if (!(await flush(false))) return 'stopped';
      if (ctx.store.clock.now() >= sliceEnd) return 'sliced';
      await yieldToEventLoop();
    }
  }
  return (await flush(true)) ? 'done' : 'stopped';
}

function commitBatch(
  ctx: ImportsContext,
  row: ImportJobRow,
  jobId: string,
  batch: readonly LocatedLine[],
  checkpoint: { offset: number; nextLine: number; done: boolean },
): Promise<boolean> {
  const { store, limits } = ctx;
  return store.db.write(function* () {
    const now = store.clock.now();
    if (!(yield* stillOwns(row.id, jobId))) return false;
    for (const line of batch) {
      const oversized = line.length > limits.maxRecordBytes;
      yield* inventoryRecordProgram({
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
    yield* updateImportJobProgram(
      row.id,
      {
        inventoryOffset: checkpoint.offset,
        nextLine: checkpoint.nextLine,
        ...(checkpoint.done ? { inventoryDone: true } : {}),
      },
      now,
    );
    return true;
  });
}
