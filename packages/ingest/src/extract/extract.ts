import type { Scheduler } from '@memory/core';
import { extractText } from '../documents/extract-text.js';
import { decodeText } from './decode-text.js';
import { extractHtml } from './extract-html.js';
import { extractInWorker } from './extract-in-worker.js';
import {
  DEFAULT_EXTRACT_LIMITS,
  ExtractError,
  type ExtractLimits,
  type ExtractResult,
  MEDIA,
  REFUSED_TYPES,
} from './extract-types.js';
import type { ExtractionPool } from './extraction-pool.js';
import { LIBRARY_VERSIONS } from './library-versions.js';

/** HTML larger than this is parsed in the worker: a DOM of a few MB holds the loop for ~100 ms. */
const HTML_IN_PROCESS_BYTES = 256 * 1024;

const TEXT_TYPES = /^(text\/(plain|markdown|x-markdown)|application\/(json|[\w.+-]+\+json))$/;

/** Media types `extract` turns into text. */
export const EXTRACTABLE_TYPES: readonly string[] = [
  'text/plain',
  'text/markdown',
  'text/x-markdown',
  'application/json',
  'application/*+json',
  MEDIA.html,
  MEDIA.xhtml,
  MEDIA.pdf,
  MEDIA.docx,
];

/** True when `extract` handles this media type (lower-case, without parameters). */
export const isExtractable = (mediaType: string): boolean =>
  TEXT_TYPES.test(mediaType) || [MEDIA.html, MEDIA.xhtml, MEDIA.pdf, MEDIA.docx].includes(mediaType as never);

/**
 * The extractor (and its version) `extract` uses for a media type: what decides whether a source
 * whose bytes did not change would be converted differently today. Undefined for types not extracted.
 */
export function extractorFor(mediaType: string): { extractor: string; extractorVersion: string } | undefined {
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (TEXT_TYPES.test(type)) return { extractor: type.includes('json') ? 'json' : 'text', extractorVersion: '1' };
  if (type === MEDIA.html || type === MEDIA.xhtml)
    return {
      extractor: 'readability+linkedom',
      extractorVersion: `${LIBRARY_VERSIONS['@mozilla/readability']}+${LIBRARY_VERSIONS.linkedom}`,
    };
  if (type === MEDIA.pdf) return { extractor: 'unpdf', extractorVersion: LIBRARY_VERSIONS.unpdf };
  if (type === MEDIA.docx) return { extractor: 'mammoth', extractorVersion: LIBRARY_VERSIONS.mammoth };
  return undefined;
}

export interface ExtractOptions {
  readonly scheduler: Scheduler;
  readonly limits?: Partial<ExtractLimits> | undefined;
  /** Charset of a text type, from its Content-Type. @default 'utf-8' */
  readonly charset?: string | undefined;
  readonly signal?: AbortSignal | undefined;
  /** Workers reused across extractions (see `createExtractionPool`). @default a fresh worker each time */
  readonly pool?: ExtractionPool | undefined;
}

/**
 * A document's bytes to text, by media type: one extractor per format behind one interface.
 * Text, Markdown and JSON are read in-process; PDF, DOCX and large HTML run in a worker thread under
 * the size, heap and time limits. Refused Office formats and unknown types are an
 * `ExtractError('unsupported-type')` that says why.
 */
export async function extract(bytes: Uint8Array, mediaType: string, options: ExtractOptions): Promise<ExtractResult> {
  const limits: ExtractLimits = { ...DEFAULT_EXTRACT_LIMITS, ...options.limits };
  const type = mediaType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (bytes.byteLength > limits.maxBytes)
    throw new ExtractError(
      'too-large',
      `the document is ${bytes.byteLength} bytes, over the ${limits.maxBytes}-byte limit`,
    );
  const refused = REFUSED_TYPES[type];
  if (refused) throw new ExtractError('unsupported-type', `${type} is refused: ${refused}`);
  if (TEXT_TYPES.test(type)) {
    const { text, title } = extractText(decodeText(bytes, options.charset), type);
    const json = type.includes('json');
    return { text, title, sections: [], warnings: [], extractor: json ? 'json' : 'text', extractorVersion: '1' };
  }
  const isHtml = type === MEDIA.html || type === MEDIA.xhtml;
  if (isHtml && bytes.byteLength <= HTML_IN_PROCESS_BYTES) return extractHtml(decodeText(bytes, options.charset));
  if ((isHtml || type === MEDIA.pdf || type === MEDIA.docx) && options.pool)
    return options.pool.run({ bytes, mediaType: type, limits, charset: options.charset }, { signal: options.signal });
  if (isHtml || type === MEDIA.pdf || type === MEDIA.docx)
    return extractInWorker(
      { bytes, mediaType: type, limits, charset: options.charset },
      { scheduler: options.scheduler, signal: options.signal },
    );
  throw new ExtractError(
    'unsupported-type',
    `${type || 'an unknown type'} is not extracted (text, Markdown, JSON, HTML, PDF and DOCX are)`,
  );
}
