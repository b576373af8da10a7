/** Where a section of an extracted text starts: a PDF page or a heading. */
export interface ExtractedSection {
  readonly kind: 'page' | 'heading';
  /** `"3"` for page 3, the heading's text for a heading. */
  readonly label: string;
  /** Character offset in `text` where the section starts. */
  readonly offset: number;
  /** Heading level (1–6); pages have none. */
  readonly level?: number;
}

/** What every extractor returns. */
export interface ExtractResult {
  readonly text: string;
  readonly title?: string | undefined;
  readonly sections: readonly ExtractedSection[];
  /** Things the reader should know (a page without text, an image-only section, truncation). */
  readonly warnings: readonly string[];
  /** Which extractor produced the text, and its library's version: the document's conversion lineage. */
  readonly extractor: string;
  readonly extractorVersion: string;
}

export type ExtractFailure =
  | 'unsupported-type'
  | 'too-large'
  | 'timeout'
  | 'malformed'
  | 'encrypted'
  | 'no-text-layer'
  | 'archive-limits';

/** Why a document's bytes could not be turned into text. Every reason is permanent for those bytes. */
export class ExtractError extends Error {
  override readonly name = 'ExtractError';
  constructor(
    readonly reason: ExtractFailure,
    message: string,
  ) {
    super(message);
  }
}

/** Size and time limits every extraction runs under. */
export interface ExtractLimits {
  /** Largest input, in bytes. */
  readonly maxBytes: number;
  /** Wall-clock limit of one extraction; a worker past it is terminated. */
  readonly timeoutMs: number;
  /** Largest total a document archive (DOCX) may unpack to, by its own directory. */
  readonly maxUnpackedBytes: number;
  /** Most entries in a document archive. */
  readonly maxArchiveEntries: number;
  /** Heap given to an extraction worker, in MB: a bomb that lies about its sizes dies there, not in the host. */
  readonly workerHeapMb: number;
}

export const DEFAULT_EXTRACT_LIMITS: ExtractLimits = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 60_000,
  maxUnpackedBytes: 100 * 1024 * 1024,
  maxArchiveEntries: 2000,
  workerHeapMb: 512,
};

export const MEDIA = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  html: 'text/html',
  xhtml: 'application/xhtml+xml',
} as const;

/**
 * Office and other binary formats that are refused, and why: no maintained, pure-JS library on the
 * registry reads them well enough to trust what they return as evidence.
 */
export const REFUSED_TYPES: Readonly<Record<string, string>> = {
  'application/msword': 'legacy binary Word (.doc) has no maintained JavaScript reader; save it as DOCX or PDF',
  'application/vnd.ms-excel': 'legacy Excel (.xls) is not extracted; export it as CSV',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet':
    'spreadsheets (.xlsx) are not extracted: cells carry no reading order; export them as CSV',
  'application/vnd.ms-powerpoint': 'legacy PowerPoint (.ppt) has no maintained JavaScript reader; export it as PDF',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation':
    'presentations (.pptx) are not extracted; export them as PDF',
  'application/vnd.oasis.opendocument.text': 'OpenDocument text (.odt) is not extracted; save it as DOCX or PDF',
  'application/rtf': 'RTF is not extracted; save it as DOCX or PDF',
};
