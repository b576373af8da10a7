import { unzipSync } from 'fflate';
import { parseHTML } from 'linkedom';
import mammoth from 'mammoth';
import { domToMarkdown } from './dom-to-markdown.js';
import { ExtractError, type ExtractLimits, type ExtractResult } from './extract-types.js';
import { LIBRARY_VERSIONS } from './library-versions.js';

/**
 * Checks a DOCX archive's own directory before anything is inflated: too many entries, or entries
 * that declare more than `maxUnpackedBytes` in total, are an `archive-limits` error. An archive that
 * lies about its sizes is stopped by the worker's heap and time limits instead.
 */
export function checkDocxArchive(
  bytes: Uint8Array,
  limits: Pick<ExtractLimits, 'maxUnpackedBytes' | 'maxArchiveEntries'>,
): void {
  if (bytes[0] !== 0x50 || bytes[1] !== 0x4b) throw new ExtractError('malformed', 'not a DOCX: not a zip archive');
  let entries = 0;
  let unpacked = 0;
  let hasDocument = false;
  try {
    unzipSync(bytes, {
      filter(file) {
        entries++;
        unpacked += file.originalSize;
        if (file.name === 'word/document.xml') hasDocument = true;
        if (entries > limits.maxArchiveEntries)
          throw new ExtractError('archive-limits', `the DOCX has more than ${limits.maxArchiveEntries} entries`);
        if (unpacked > limits.maxUnpackedBytes)
          throw new ExtractError(
            'archive-limits',
            `the DOCX unpacks to more than ${limits.maxUnpackedBytes} bytes (a zip bomb?); refused`,
          );
        // Nothing is inflated here: only the directory is read.
        return false;
      },
    });
  } catch (error) {
    if (error instanceof ExtractError) throw error;
    throw new ExtractError(
      'malformed',
      `not a readable DOCX archive: ${error instanceof Error ? error.message : error}`,
    );
  }
  if (!hasDocument) throw new ExtractError('malformed', 'not a DOCX: the archive has no word/document.xml');
}

/**
 * A Word (DOCX) document as Markdown-ish text through mammoth: headings (Word's Heading styles)
 * become `#` lines and sections, lists `- ` lines. Images are dropped (named in the warnings).
 * Heavy: the engine runs it in a worker thread, after {@link checkDocxArchive}.
 */
export async function extractDocx(bytes: Uint8Array, limits: ExtractLimits): Promise<ExtractResult> {
  checkDocxArchive(bytes, limits);
  let html: string;
  let messages: { type: string; message: string }[];
  let images = 0;
  try {
    const result = await mammoth.convertToHtml(
      { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
      {
        // A DOCX may link images by path or URL: never follow them.
        externalFileAccess: false,
        convertImage: mammoth.images.imgElement(() => {
          images++;
          return Promise.resolve({ src: '' });
        }),
      },
    );
    html = result.value;
    messages = result.messages;
  } catch (error) {
    throw new ExtractError(
      'malformed',
      `the DOCX could not be read: ${error instanceof Error ? error.message : error}`,
    );
  }
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  const { text, sections } = domToMarkdown(document.body);
  const warnings = messages.filter((m) => m.type === 'warning').map((m) => m.message);
  if (images > 0) warnings.push(`${images} image(s) dropped`);
  const first = sections.find((s) => s.level === 1);
  return {
    text,
    title: first?.label,
    sections,
    warnings,
    extractor: 'mammoth',
    extractorVersion: LIBRARY_VERSIONS.mammoth,
  };
}
