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
