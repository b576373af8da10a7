import { createHash } from 'node:crypto';
import { createTimeSlicer, type TimeSlicer } from '@memory/core';
import type { TextSource } from './chunk-text.js';

// 1 MiB of text hashes in ~2 ms: slices this size keep each synchronous step short.
const SLICE_CHARS = 1024 * 1024;

/**
 * sha256 (hex) of a text's UTF-8 bytes, fed to the hash in slices with the event loop let run
 * between ~10 ms of work: hashing a 50 MB document in one call holds the loop for ~100 ms. Equals
 * `createHash('sha256').update(text).digest('hex')` (slices end between UTF-16 surrogate pairs,
 * never inside one). A text in parts hashes as their concatenation, provided no part ends inside a
 * surrogate pair (stored parts never do). Pass the caller's `slicer` to share its time budget.
 */
export async function hashText(text: TextSource, slicer: TimeSlicer = createTimeSlicer()): Promise<string> {
  const hash = createHash('sha256');
  for (const part of typeof text === 'string' ? [text] : text) {
    for (let start = 0; start < part.length; ) {
      let end = Math.min(part.length, start + SLICE_CHARS);
      // Do not split a surrogate pair: each half alone would be encoded as U+FFFD.
      const last = part.charCodeAt(end - 1);
      if (end < part.length && last >= 0xd800 && last <= 0xdbff) end++;
      hash.update(part.slice(start, end), 'utf8');
      start = end;
      if (slicer.due()) await slicer.yield();
    }
  }
  return hash.digest('hex');
}

/** sha256 (hex) of bytes, in one call: document bytes are bounded by `documents.maxBytes` (10 MiB hash in ~20 ms). */
export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
