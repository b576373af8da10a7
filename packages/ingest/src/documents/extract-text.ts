import type { TextSource } from './chunk-text.js';

/** Plain text and a title from a fetched or supplied document. */
export interface ExtractedText {
  readonly text: string;
  readonly title: string | undefined;
}

/** How far into a text or Markdown document its title heading is looked for. */
const TITLE_SCAN_CHARS = 64 * 1024;

/**
 * Text, Markdown or JSON as text (HTML and binary formats go through `extract`); a Markdown or
 * text document's first heading (within its first 64 K characters) is its title.
 */
export function extractText(body: string, contentType: string): ExtractedText {
  if (contentType.includes('json')) {
    try {
      return { text: JSON.stringify(JSON.parse(body), null, 2), title: undefined };
    } catch {
      return { text: body, title: undefined };
    }
  }
  // The title is a heading near the top: scanning a whole 50 MB text for one would hold the event
  // loop for tens of milliseconds, and a heading that deep names a section, not the document.
  const heading = body
    .slice(0, TITLE_SCAN_CHARS)
    .match(/^#{1,6}\s+(.+)$/m)?.[1]
    ?.trim();
  return { text: body.includes('\r') ? body.replace(/\r\n?/g, '\n') : body, title: heading || undefined };
}

/**
 * {@link extractText} of a text in parts (a large stored document), with the same result as of
 * their concatenation. Plain text and Markdown stay in parts: the title is looked for in the first
 * 64 K characters and line endings are normalized part by part (a `\r` ending one part is carried
 * into the next, in case a `\n` starts it). HTML and JSON are converted whole, so they are joined.
 */
export function extractTextParts(
  parts: readonly string[],
  contentType: string,
): { readonly text: TextSource; readonly title: string | undefined } {
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml' || contentType.includes('json'))
    return extractText(parts.join(''), contentType);
  let head = '';
  for (const part of parts) {
    if (head.length >= TITLE_SCAN_CHARS) break;
    head += part.slice(0, TITLE_SCAN_CHARS - head.length);
  }
  const { title } = extractText(head, contentType);
  if (!parts.some((part) => part.includes('\r'))) return { text: parts, title };
  const text: string[] = [];
  let carry = '';
  for (const [i, part] of parts.entries()) {
    let piece = carry + part;
    carry = '';
    if (i < parts.length - 1 && piece.endsWith('\r')) {
      piece = piece.slice(0, -1);
      carry = '\r';
    }
    text.push(piece.replace(/\r\n?/g, '\n'));
  }
  return { text, title };
}
