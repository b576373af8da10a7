import type { ExtractedSection } from '../extract/extract-types.js';
import type { ChunkSpan } from './chunk-text.js';

/** Where a chunk sits in its source: what a host cites ("report.pdf p. 12"). */
export interface ChunkLocation {
  /** The PDF page the chunk starts on (1-based). */
  readonly page?: number;
  /** The page it ends on, when it runs over a page break. */
  readonly pageEnd?: number;
  /** The nearest heading above the chunk (HTML, Markdown, DOCX). */
  readonly section?: string;
  /** Character offset of the chunk in the extracted text. */
  readonly offset: number;
}

/**
 * The location of each chunk (spans in text order) from the extractor's section markers. One walk
 * over both lists: a 1,200-page PDF has as many page markers, and chunks only move forward.
 */
export function locateChunks(spans: readonly ChunkSpan[], sections: readonly ExtractedSection[]): ChunkLocation[] {
  const pages = sections.filter((s) => s.kind === 'page').sort((a, b) => a.offset - b.offset);
  const headings = sections.filter((s) => s.kind === 'heading').sort((a, b) => a.offset - b.offset);
  let p = -1;
  let h = -1;
  return spans.map((span) => {
    while (p + 1 < pages.length && (pages[p + 1]?.offset ?? 0) <= span.start) p++;
    while (h + 1 < headings.length && (headings[h + 1]?.offset ?? 0) <= span.start) h++;
    let last = p;
    const end = span.start + span.text.length;
    while (last + 1 < pages.length && (pages[last + 1]?.offset ?? 0) < end) last++;
    const page = pageNumber(pages[p]);
    const pageEnd = last > p ? pageNumber(pages[last]) : undefined;
    const section = headings[h]?.label;
    return {
      ...(page !== undefined ? { page } : {}),
      ...(pageEnd !== undefined && pageEnd !== page ? { pageEnd } : {}),
      ...(section ? { section } : {}),
      offset: span.start,
    };
  });
}

const pageNumber = (section: ExtractedSection | undefined): number | undefined => {
  if (!section) return undefined;
  const n = Number(section.label);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** A stored location (`document_memories.location_json`) read back; unreadable JSON gives none. */
export function parseLocation(json: string | null): ChunkLocation | null {
  if (json === null) return null;
  try {
    const value = JSON.parse(json) as Partial<ChunkLocation>;
    return typeof value.offset === 'number' ? (value as ChunkLocation) : null;
  } catch {
    return null;
  }
}
