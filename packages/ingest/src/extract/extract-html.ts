import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { domToMarkdown } from './dom-to-markdown.js';
import type { ExtractResult } from './extract-types.js';
import { LIBRARY_VERSIONS } from './library-versions.js';

// Page furniture that is never the document: removed before Readability scores the page, so a
// short page (where Readability gives up and the whole body is used) loses it too.
const BOILERPLATE = [
  'nav',
  'header',
  'footer',
  'aside',
  'form',
  'dialog',
  '[role="navigation"]',
  '[role="banner"]',
  '[role="contentinfo"]',
  '[role="dialog"]',
  '[role="alertdialog"]',
  '[aria-modal="true"]',
  '[hidden]',
].join(',');
const BANNER = /(^|[-_\s])(cookie|cookies|consent|gdpr|cmp|newsletter|subscribe|skip-link|breadcrumbs?)([-_\s]|$)/i;

interface Element {
  readonly id: string;
  readonly className: string;
  remove(): void;
}

function dropBoilerplate(document: { querySelectorAll(selector: string): ArrayLike<Element> }): void {
  for (const element of Array.from(document.querySelectorAll(BOILERPLATE))) element.remove();
  for (const element of Array.from(document.querySelectorAll('[id],[class]'))) {
    if (BANNER.test(element.id) || BANNER.test(String(element.className))) element.remove();
  }
}

const clean = (s: string | null | undefined): string | undefined => s?.replace(/\s+/g, ' ').trim() || undefined;

/**
 * HTML to Markdown-ish text: navigation, headers, footers, cookie and consent banners dropped,
 * the main content chosen by Readability (Firefox Reader View) when it finds one, headings kept as
 * `#` lines and sections, entities decoded by the parser.
 */
export function extractHtml(html: string): ExtractResult {
  const { document } = parseHTML(html);
  const title = clean(document.querySelector('title')?.textContent);
  dropBoilerplate(document);
  const warnings: string[] = [];
  // Readability mutates the document it reads, so it reads its own copy.
  const article = new Readability(parseHTML(document.toString()).document as never, { charThreshold: 200 }).parse();
  let body: Parameters<typeof domToMarkdown>[0] = document.body ?? document;
  if (article?.content) body = parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
  else warnings.push('no main content found; the whole page body (without navigation and banners) was used');
  const { text, sections } = domToMarkdown(body);
  return {
    text,
    title: title ?? clean(article?.title),
    sections,
    warnings,
    extractor: 'readability+linkedom',
    extractorVersion: `${LIBRARY_VERSIONS['@mozilla/readability']}+${LIBRARY_VERSIONS.linkedom}`,
  };
}
