import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';

/** One non-blank line of a JSONL file, located by bytes. Its content is hashed, never buffered. */
export interface ScannedLine {
  readonly offset: number;
  /** Bytes of the line, without the newline. */
  readonly length: number;
  /** sha256 of the line's bytes. */
  readonly hash: string;
  /** Offset just past the line's newline: where a resumed scan continues. */
  readonly next: number;
}

const NEWLINE = 0x0a;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Whether the file starts with a UTF-8 byte-order mark (some exporters write one). */
async function startsWithBom(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(BOM.length);
    const { bytesRead } = await handle.read(head, 0, BOM.length, 0);
    return bytesRead === BOM.length && head.equals(BOM);
  } finally {
    await handle.close();
  }
}
const isBlankByte = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0d;

/**
 * Streams a file from `start`, yielding every non-blank line's byte range and hash. Memory use is one
 * read buffer whatever the line lengths: a 100 MiB line is hashed as it streams past. A leading
 * UTF-8 byte-order mark is skipped: the first line starts after it.
 */
export async function* scanLines(path: string, from: number, signal?: AbortSignal): AsyncGenerator<ScannedLine> {
  const start = from === 0 && (await startsWithBom(path)) ? BOM.length : from;
  let lineStart = start;
  let position = start;
  let hash = createHash('sha256');
  let blank = true;
  const stream = createReadStream(path, { start, highWaterMark: 256 * 1024, ...(signal ? { signal } : {}) });
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    let from = 0;
    for (let i = buffer.indexOf(NEWLINE); i !== -1; i = buffer.indexOf(NEWLINE, i + 1)) {
      const piece = buffer.subarray(from, i);
      hash.update(piece);
      if (blank) blank = piece.every(isBlankByte);
      const end = position + i;
      if (!blank) yield { offset: lineStart, length: end - lineStart, hash: hash.digest('hex'), next: end + 1 };
      lineStart = end + 1;
      from = i + 1;
      hash = createHash('sha256');
      blank = true;
    }
    const rest = buffer.subarray(from);
    hash.update(rest);
    if (blank) blank = rest.every(isBlankByte);
    position += buffer.length;
  }
  if (!blank && position > lineStart)
    yield { offset: lineStart, length: position - lineStart, hash: hash.digest('hex'), next: position };
}
