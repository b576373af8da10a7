import { extractText, getDocumentProxy } from 'unpdf';
import { ExtractError, type ExtractedSection, type ExtractResult } from './extract-types.js';
import { LIBRARY_VERSIONS } from './library-versions.js';

const PDF_MAGIC = '%PDF-';

/** The page marker put before each page's text; a chunk that holds it can cite its page. */
export const pageMarker = (page: number): string => `[page ${page}]`;

function classify(error: unknown): ExtractError {
  const name = error instanceof Error ? error.name : '';
  const message = error instanceof Error ? error.message : String(error);
  if (name === 'PasswordException') return new ExtractError('encrypted', `the PDF is encrypted: ${message}`);
  if (name === 'InvalidPDFException' || name === 'FormatError')
    return new ExtractError('malformed', `not a readable PDF: ${message}`);
  return new ExtractError('malformed', `the PDF could not be read: ${message}`);
}

/**
 * A PDF's text page by page, each page after a `[page N]` marker that is also a section. A PDF
 * with no text on any page (a scan without a text layer) is an `ExtractError('no-text-layer')`,
 * never an empty document; pages without text are named in the warnings. Encrypted and malformed
 * PDFs are typed errors. Heavy: the engine runs it in a worker thread.
 */
export async function extractPdf(bytes: Uint8Array): Promise<ExtractResult> {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  if (!head.includes(PDF_MAGIC)) throw new ExtractError('malformed', 'not a PDF: no %PDF- header');
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // pdf.js takes ownership of (detaches) the buffer it is given: it gets a copy.
    pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0, isEvalSupported: false });
  } catch (error) {
    throw classify(error);
  }
  try {
    let title: string | undefined;
    try {
      const info = (await pdf.getMetadata()).info as { Title?: unknown } | undefined;
      title = typeof info?.Title === 'string' ? info.Title.trim() || undefined : undefined;
    } catch {
      title = undefined;
    }
    let pages: string[];
    try {
      pages = (await extractText(pdf, { mergePages: false })).text;
    } catch (error) {
      throw classify(error);
    }
    const sections: ExtractedSection[] = [];
    const empty: number[] = [];
    let text = '';
    for (const [i, raw] of pages.entries()) {
      const page = i + 1;
      const body = raw
        .replace(/[ \t\u00a0]+/g, ' ')
        .replace(/\n{3,}/g, '\n\n')
        .trim();
      if (!body) {
        empty.push(page);
        continue;
      }
      if (text) text += '\n\n';
      sections.push({ kind: 'page', label: String(page), offset: text.length });
      text += `${pageMarker(page)}\n\n${body}`;
    }
    if (!text)
      throw new ExtractError(
        'no-text-layer',
        `the PDF has no text layer on any of its ${pages.length} page(s) (a scan?); it needs OCR before it can be ingested`,
      );
    const warnings =
      empty.length > 0 ? [`${empty.length} of ${pages.length} page(s) have no text layer: ${empty.join(', ')}`] : [];
    return { text, title, sections, warnings, extractor: 'unpdf', extractorVersion: LIBRARY_VERSIONS.unpdf };
  } finally {
    await pdf.destroy().catch(() => undefined);
  }
}
