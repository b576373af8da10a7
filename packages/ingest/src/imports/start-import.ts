import { createWriteStream } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { abortedError, MemoryError, parseInput, throwIfAborted } from '@memory/core';
import { insertImportJob } from '@memory/store';
import { enqueueRun, type ImportsContext } from './context.js';
import { startSchema } from './inputs.js';

/**
 * Starts an import: spools a streamed export to `imports.spoolDirectory` (so the import can resume by
 * byte offset), records the file and its size, and queues the run. Returns the import's id.
 */
export async function startImport(ctx: ImportsContext, input: unknown): Promise<{ jobId: string }> {
  const { store } = ctx;
  const { signal, ...request } = parseInput(startSchema, input, 'imports.start');
  throwIfAborted(signal, 'imports.start');
  const id = store.ids.next();
  const path = request.stream ? await spool(ctx, request.stream, id, signal) : (request.file ?? '');
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile())
    throw new MemoryError('INVALID_INPUT', `import file ${path} does not exist or is not a file`, {
      details: { file: path },
    });
  if (signal?.aborted) {
    // A spooled copy nothing will import is removed; a host's own file is left alone.
    if (request.stream) await rm(path, { force: true });
    throw abortedError(signal, 'imports.start');
  }
  store.write((sql) => {
    insertImportJob(sql, {
      id,
      agentId: request.agentId,
      sourcePath: path,
      fileSize: info.size,
      now: store.clock.now(),
    });
    enqueueRun(ctx, sql, id, request.agentId);
  });
  return { jobId: id };
}

async function spool(
  ctx: ImportsContext,
  stream: AsyncIterable<Uint8Array | string>,
  id: string,
  signal: AbortSignal | undefined,
): Promise<string> {
  const directory = ctx.limits.spoolDirectory;
  if (!directory) {
    throw new MemoryError(
      'INVALID_INPUT',
      'importing from a stream needs config.imports.spoolDirectory (where the export is written first)',
    );
  }
  const path = join(directory, `import-${id}.jsonl`);
  try {
    await pipeline(Readable.from(stream), createWriteStream(path, { flags: 'wx' }), signal ? { signal } : {});
  } catch (error) {
    await rm(path, { force: true });
    if (signal?.aborted) throw abortedError(signal, 'imports.start');
    throw new MemoryError(
      'STORAGE_ERROR',
      `could not spool the import stream to ${path}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  return path;
}
