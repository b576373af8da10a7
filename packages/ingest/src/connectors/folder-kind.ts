import type { Dir, Dirent } from 'node:fs';
import { lstat, opendir, open as openFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { MemoryError } from '@memory/core';
import { z } from 'zod';
import { REFUSED_TYPES } from '../extract/extract-types.js';
import type {
  ConnectorBatch,
  ConnectorItem,
  ConnectorKind,
  ConnectorOpenContext,
  ConnectorRefusal,
  ConnectorSource,
} from './connector-kind.js';
import { globMatcher } from './glob.js';

/** Media types by file extension: the formats `extract` reads, and the refused Office ones (to say why). */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  txt: 'text/plain',
  text: 'text/plain',
  log: 'text/plain',
  md: 'text/markdown',
  markdown: 'text/markdown',
  json: 'application/json',
  html: 'text/html',
  htm: 'text/html',
  xhtml: 'application/xhtml+xml',
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  doc: 'application/msword',
  xls: 'application/vnd.ms-excel',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  ppt: 'application/vnd.ms-powerpoint',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  odt: 'application/vnd.oasis.opendocument.text',
  rtf: 'application/rtf',
};

/** The media type of a file name, from its extension. */
export function mediaTypeOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : MEDIA_TYPES[name.slice(dot + 1).toLowerCase()];
}

/** Items per batch: each batch is written (a few short transactions) before the walk goes on. */
const BATCH_ITEMS = 32;
/** Directory entries looked at between two batches, when few of them are items (a tree of skipped files). */
const BATCH_ENTRIES = 256;

const folderConfig = z.strictObject({
  /** An absolute path to an existing directory. */
  root: z.string().min(1).max(4096),
  /** Glob patterns of files to index (default: every file of a type `documents.add` extracts). */
  include: z.array(z.string().min(1).max(1024)).max(100).optional(),
  /** Glob patterns left out (default: `.git` and `node_modules` trees). @default ['**\/.git/**', '**\/node_modules/**'] */
  exclude: z.array(z.string().min(1).max(1024)).max(100).optional(),
});

type FolderConfig = z.infer<typeof folderConfig>;

const DEFAULT_EXCLUDE = ['**/.git/**', '**/node_modules/**'];

/** True when `path` is `root` or inside it (both real, absolute paths). */
const inside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

/**
 * The folder connector: walks a directory tree with async reads (a directory streamed in entries,
 * never listed in one synchronous call), yielding batches of files whose version is `mtime:size`.
 * Symbolic links are followed only to files inside the root; a link leading out of it (or to a
 * directory) is refused. Keys never contain `..`: they are relative paths found by the walk.
 */
export const folderKind: ConnectorKind = {
  kind: 'folder',
  listing: 'full',
  async parseConfig(raw) {
    const parsed = folderConfig.safeParse(raw);
    if (!parsed.success)
      throw new MemoryError('INVALID_INPUT', `folder connector: ${parsed.error.issues[0]?.message ?? 'bad config'}`, {
        details: { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) },
      });
    const config = parsed.data;
    if (!isAbsolute(config.root))
      throw new MemoryError('INVALID_INPUT', 'folder connector: root must be an absolute path', {
        details: { root: config.root },
      });
    const info = await stat(config.root).catch(() => undefined);
    if (!info?.isDirectory())
      throw new MemoryError('INVALID_INPUT', 'folder connector: root must be an existing directory', {
        details: { root: config.root },
      });
    return { root: config.root, include: config.include ?? null, exclude: config.exclude ?? DEFAULT_EXCLUDE };
  },
  open(stored, context) {
    return openFolder(stored as unknown as FolderConfig, context);
  },
};

function openFolder(config: FolderConfig, context: ConnectorOpenContext): ConnectorSource {
  const included = config.include ? globMatcher(config.include) : () => true;
  const excluded = globMatcher(config.exclude ?? DEFAULT_EXCLUDE);
  let realRoot: string | undefined;
  const rootOf = async (): Promise<string> => {
    realRoot ??= await realpath(config.root);
    return realRoot;
  };

  /** The real path of a key's file, or a refusal when it (or a link on the way) leads out of the root. */
  async function resolve(key: string): Promise<string | ConnectorRefusal> {
    const root = await rootOf();
    const real = await realpath(join(root, ...key.split('/')));
    if (!inside(root, real)) return { key, reason: 'a symbolic link leads outside the connector root' };
    return real;
  }

  async function readItem(key: string, signal: AbortSignal): Promise<Uint8Array> {
    const real = await resolve(key);
    if (typeof real !== 'string') throw new MemoryError('INVALID_INPUT', real.reason, { details: { key } });
    const handle = await openFile(real, 'r');
    try {
      const info = await handle.stat();
      if (info.size > context.maxBytes)
        throw new MemoryError('INVALID_INPUT', `${key} is over documents.maxBytes`, { details: { key } });
      return await handle.readFile({ signal });
    } finally {
      await handle.close();
    }
  }

  async function* scan({ signal }: { signal: AbortSignal }): AsyncGenerator<ConnectorBatch> {
    const root = await rootOf();
    const dirs: string[] = [''];
    let items: ConnectorItem[] = [];
    let refused: ConnectorRefusal[] = [];
    let skipped = 0;
    let entries = 0;
    const flush = (): ConnectorBatch => {
      const batch = { items, refused, skipped };
      items = [];
      refused = [];
      skipped = 0;
      entries = 0;
      return batch;
    };
    while (dirs.length > 0) {
      const dirKey = dirs.pop() as string;
      let dir: Dir;
      try {
        dir = await opendir(join(root, ...dirKey.split('/').filter(Boolean)));
      } catch (error) {
        refused.push({ key: dirKey || '.', reason: `directory unreadable: ${(error as Error).message}` });
        continue;
      }
      for await (const entry of dir) {
        if (signal.aborted) throw signal.reason;
        entries++;
        const key = dirKey ? `${dirKey}/${entry.name}` : entry.name;
        const found = await classify(entry, key);
        if (found === 'dir') {
          if (!excluded(`${key}/`) && !excluded(`${key}/x`)) dirs.push(key);
        } else if (found === 'skip') skipped++;
        else if ('reason' in found) refused.push(found);
        else items.push(found);
        if (items.length >= BATCH_ITEMS || entries >= BATCH_ENTRIES) yield flush();
      }
    }
    yield flush();
  }

  /** What one directory entry is: a directory to walk, an item, a refusal, or a file left out. */
  async function classify(entry: Dirent, key: string): Promise<'dir' | 'skip' | ConnectorItem | ConnectorRefusal> {
    if (entry.isDirectory()) return 'dir';
    if (excluded(key) || !included(key)) return 'skip';
    const mediaType = mediaTypeOf(entry.name);
    if (!entry.isFile() && !entry.isSymbolicLink()) return 'skip';
    if (!mediaType) return 'skip';
    let real = join(await rootOf(), ...key.split('/'));
    if (entry.isSymbolicLink()) {
      const target = await resolve(key).catch(() => ({ key, reason: 'a broken symbolic link' }));
      if (typeof target !== 'string') return target;
      const info = await stat(target);
      if (!info.isFile()) return { key, reason: 'a symbolic link to a directory is not followed' };
      real = target;
    }
    const refusedType = REFUSED_TYPES[mediaType];
    if (refusedType) return { key, reason: refusedType };
    const info = await lstat(real);
    if (info.size > context.maxBytes)
      return { key, reason: `${info.size} bytes, over documents.maxBytes (${context.maxBytes})` };
    if (info.size === 0) return 'skip';
    return {
      key,
      version: `${Math.trunc(info.mtimeMs)}:${info.size}`,
      mediaType,
      title: entry.name,
      read: (signal) => readItem(key, signal),
    };
  }

  return {
    scan,
    async exists(key) {
      const root = await rootOf();
      return lstat(join(root, ...key.split('/'))).then(
        () => true,
        () => false,
      );
    },
  };
}
