import { createTimeSlicer, type TimeSlicer } from '@memory/core';

/**
 * A text as the chunker reads it: one string, or consecutive parts of one (a large stored document,
 * read back without joining its parts into one 50 MB string).
 */
export type TextSource = string | readonly string[];

/**
 * Splits text into chunks of at most `size` characters with about `overlap` characters repeated
 * between neighbours, cutting at paragraph breaks where possible, then sentence ends, then spaces,
 * and only as a last resort inside a word.
 */
export function chunkText(text: TextSource, size: number, overlap: number): string[] {
  return [...chunksOf(viewOf(text), size, overlap)];
}

/**
 * {@link chunkText} for long texts: the same chunks, computed in ~10 ms slices with the event loop
 * let run between them (a 50 MB document has ~30,000 chunks). Pass the caller's `slicer` to share
 * its time budget.
 */
export async function chunkTextSliced(
  text: TextSource,
  size: number,
  overlap: number,
  slicer: TimeSlicer = createTimeSlicer(),
): Promise<string[]> {
  const chunks: string[] = [];
  for (const chunk of chunksOf(viewOf(text), size, overlap)) {
    chunks.push(chunk);
    if (slicer.due()) await slicer.yield();
  }
  return chunks;
}

/** A chunk and where it starts (a character offset) in the text it was cut from. */
export interface ChunkSpan {
  readonly text: string;
  readonly start: number;
}

/**
 * {@link chunkTextSliced} with each chunk's start offset in `text`: what places a chunk on a page or
 * under a heading of the extracted document.
 */
export async function chunkSpansSliced(
  text: TextSource,
  size: number,
  overlap: number,
  slicer: TimeSlicer = createTimeSlicer(),
): Promise<ChunkSpan[]> {
  const spans: ChunkSpan[] = [];
  for (const span of spansOf(viewOf(text), size, overlap)) {
    spans.push(span);
    if (slicer.due()) await slicer.yield();
  }
  return spans;
}

/** What the chunker needs of a text: its length and a copy of any range. */
interface TextView {
  readonly length: number;
  slice(start: number, end: number): string;
}

const WHITE = /\s/;

function partsView(parts: readonly string[]): TextView {
  const starts: number[] = [];
  let length = 0;
  for (const part of parts) {
    starts.push(length);
    length += part.length;
  }
  /** The last part starting at or before `at`. */
  const partAt = (at: number): number => {
    let lo = 0;
    let hi = parts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] ?? 0) <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  return {
    length,
    slice(start, end) {
      let out = '';
      for (let p = partAt(start); p < parts.length && (starts[p] ?? 0) < end; p++) {
        const from = starts[p] ?? 0;
        out += (parts[p] ?? '').slice(Math.max(0, start - from), end - from);
      }
      return out;
    },
  };
}

/** The text between its leading and trailing whitespace, as `String.prototype.trim` would leave it. */
function trimmed(view: TextView): TextView & { readonly offset: number } {
  // Read in windows: a view of parts answers a range, not a character.
  const WINDOW = 4096;
  let first = 0;
  search: for (; first < view.length; first += WINDOW) {
    const window = view.slice(first, Math.min(view.length, first + WINDOW));
    for (let i = 0; i < window.length; i++) {
      if (!WHITE.test(window[i] as string)) {
        first += i;
        break search;
      }
    }
  }
  let last = view.length;
  search: while (last > first) {
    const from = Math.max(first, last - WINDOW);
    const window = view.slice(from, last);
    for (let i = window.length - 1; i >= 0; i--) {
      if (!WHITE.test(window[i] as string)) {
        last = from + i + 1;
        break search;
      }
    }
    last = from;
  }
  const offset = Math.min(first, last);
  return { offset, length: last - offset, slice: (start, end) => view.slice(offset + start, offset + end) };
}

const viewOf = (text: TextSource): TextView =>
  typeof text === 'string' ? { length: text.length, slice: (start, end) => text.slice(start, end) } : partsView(text);

function* chunksOf(text: TextView, size: number, overlap: number): Generator<string> {
  for (const span of spansOf(text, size, overlap)) yield span.text;
}

function* spansOf(text: TextView, size: number, overlap: number): Generator<ChunkSpan> {
  if (size < 1) throw new RangeError('chunk size must be at least 1');
  const clean = trimmed(text);
  if (clean.length === 0) return;
  const step = Math.max(0, Math.min(overlap, Math.floor(size / 2)));
  let start = 0;
  while (start < clean.length) {
    const hardEnd = Math.min(clean.length, start + size);
    // Every decision about this chunk looks only inside [start, hardEnd).
    const window = clean.slice(start, hardEnd);
    const end = hardEnd === clean.length ? hardEnd : start + cutPoint(window);
    const piece = window.slice(0, end - start);
    const chunk = piece.trim();
    if (chunk.length > 0)
      yield { text: chunk, start: clean.offset + start + (piece.length - piece.trimStart().length) };
    if (end >= clean.length) break;
    // Start the next chunk `overlap` characters back, at a word boundary, and always move forward.
    let next = Math.max(start + 1, end - step);
    const space = window.indexOf(' ', next - start);
    if (space !== -1 && start + space < end) next = start + space + 1;
    start = next;
  }
}

/** Where to end a chunk whose longest possible text is `window`: an offset into it. */
function cutPoint(window: string): number {
  const minimum = Math.floor(window.length / 2); // never cut so early that chunks get tiny
  const paragraph = window.lastIndexOf('\n\n');
  if (paragraph >= minimum) return paragraph + 2;
  let sentence = -1;
  for (const m of window.matchAll(/[.!?。！？](["')\]]?)\s/g)) sentence = m.index + m[0].length;
  if (sentence >= minimum) return sentence;
  const line = window.lastIndexOf('\n');
  if (line >= minimum) return line + 1;
  const space = window.lastIndexOf(' ');
  if (space >= minimum) return space + 1;
  // A short chunk beats a word cut in half; cut inside a word only when the window has no space.
  return space > 0 ? space + 1 : window.length;
}
