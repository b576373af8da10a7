import { createWriteStream } from 'node:fs';
import { realpath, rm, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { abortedError, MemoryError, parseInput, throwIfAborted } from '@memory/core';
import { insertImportJobProgram } from '@memory/store';
import { enqueueRunProgram, type ImportsContext } from './context.js';
import { startSchema } from './inputs.js';

/**
 * Starts an import: spools a streamed export to `imports.spoolDirectory` (so the import can resume by
 * byte offset), checks the file is a regular file inside an allowed directory, records its real
 * path and size, and queues the run. Returns the import's id.
 */
export async function startImport(ctx: ImportsContext, input: unknown): Promise<{ jobId: string }> {
  const { store } = ctx;
  const { signal, ...request } = parseInput(startSchema, input, 'imports.start');
  throwIfAborted(signal, 'imports.start');
  const id = store.ids.next();
  const spooled = request.stream ? await spool(ctx, request.stream, id, signal) : undefined;
  const { path, size } = await checkImportFile(ctx, spooled ?? request.file ?? '');
  if (signal?.aborted) {
    // A spooled copy nothing will import is removed; a host's own file is left alone.
    if (request.stream) await rm(path, { force: true });
    throw abortedError(signal, 'imports.start');
  }
  // The import and its first run commit together.
  await store.db.write(function* () {
    yield* insertImportJobProgram({
      id,
      agentId: request.agentId,
      sourcePath: path,
      fileSize: size,
      now: store.clock.now(),
    });
    yield* enqueueRunProgram(ctx, id, request.agentId);
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

/** The directories imports may read from: the spool directory and `imports.allowedDirectories`. */
function allowedDirectories(limits: ImportsContext['limits']): string[] {
  return [...(limits.spoolDirectory ? [limits.spoolDirectory] : []), ...limits.allowedDirectories].map((d) =>
    resolve(d),
  );
}

const isInside = (directory: string, path: string): boolean => {
  const rel = relative(directory, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
};

/**
 * The file an import may read, as its real path (symlinks resolved) and size. It must lie inside an
 * allowed directory both as given and once resolved (a symlink cannot lead out), and be a regular
 * file (not a directory, device, FIFO or socket). A path outside every allowed directory is refused
 * before the filesystem is consulted, so the answer never says whether such a file exists.
 */
async function checkImportFile(ctx: ImportsContext, file: string): Promise<{ path: string; size: number }> {
  const directories = allowedDirectories(ctx.limits);
  if (directories.length === 0)
    throw new MemoryError(
      'INVALID_INPUT',
      'importing a file needs config.imports.allowedDirectories (the directories exports may be read from) or config.imports.spoolDirectory',
    );
  const outside = () =>
    new MemoryError(
      'INVALID_INPUT',
      `import file ${file} is not inside imports.allowedDirectories or the spool directory`,
      {
        details: { file },
      },
    );
  const requested = resolve(file);
  const realDirectories = await Promise.all(directories.map((d) => realpath(d).catch(() => d)));
  const within = (path: string, among: readonly string[]) => among.some((d) => isInside(d, path));
  if (!within(requested, [...directories, ...realDirectories])) throw outside();
  const real = await realpath(requested).catch(() => undefined);
  if (real === undefined)
    throw new MemoryError('INVALID_INPUT', `import file ${file} does not exist`, { details: { file } });
  if (!within(real, realDirectories)) throw outside();
  const info = await stat(real);
  if (!info.isFile())
    throw new MemoryError('INVALID_INPUT', `import file ${file} is not a regular file`, { details: { file } });
  return { path: real, size: info.size };
}
