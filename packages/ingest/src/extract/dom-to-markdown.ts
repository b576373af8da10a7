import type { ExtractedSection } from './extract-types.js';

// linkedom's nodes, typed by the few members walked here.
interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<DomNode>;
  getAttribute?(name: string): string | null;
}

const BLOCKS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'BLOCKQUOTE',
  'TABLE',
  'TR',
  'UL',
  'OL',
  'DL',
  'DT',
  'DD',
  'FIGURE',
  'FIGCAPTION',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'HR',
]);
const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'SVG', 'HEAD', 'IFRAME', 'BUTTON', 'FORM', 'CANVAS']);

const squash = (s: string): string => s.replace(/[\s\u00a0]+/g, ' ');

/**
 * Markdown-ish text of a DOM subtree: headings become `#` lines (and sections), list items `- `
 * lines, preformatted blocks stay as they are, other blocks become paragraphs. Entities were already
 * decoded by the parser. Markdown keeps the structure the chunker cuts on (blank lines, headings).
 */
export function domToMarkdown(root: DomNode): { text: string; sections: ExtractedSection[] } {
  const blocks: { text: string; heading?: number }[] = [];
  let line = '';
  const flush = (): void => {
    const text = line.trim();
    if (text) blocks.push({ text });
    line = '';
  };
  const walk = (node: DomNode): void => {
    if (node.nodeType === 3) {
      line += squash(node.textContent ?? '');
      return;
    }
    if (node.nodeType !== 1 && node.nodeType !== 9 && node.nodeType !== 11) return;
    const name = node.nodeName.toUpperCase();
    if (SKIP.has(name)) return;
    const heading = /^H([1-6])$/.exec(name);
    if (heading) {
      flush();
      const text = squash(node.textContent ?? '').trim();
      if (text) blocks.push({ text, heading: Number(heading[1]) });
      return;
    }
    if (name === 'PRE') {
      flush();
      const text = (node.textContent ?? '').replace(/\s+$/, '');
      if (text.trim()) blocks.push({ text: `\`\`\`\n${text}\n\`\`\`` });
      return;
    }
    if (name === 'BR') {
      line += '\n';
      return;
    }
    if (name === 'LI') {
      flush();
      line = '- ';
      for (const child of Array.from(node.childNodes)) walk(child);
      if (line.trim() !== '-') flush();
      line = '';
      return;
    }
    const block = BLOCKS.has(name);
    if (block) flush();
    if (name === 'TD' || name === 'TH') line += ' ';
    for (const child of Array.from(node.childNodes)) walk(child);
    if (block) flush();
  };
  walk(root);
  flush();
  let text = '';
  const sections: ExtractedSection[] = [];
  for (const block of blocks) {
    if (text) text += '\n\n';
    const body = block.text
      .split('\n')
      .map((l) => l.trim())
      .join('\n');
    if (block.heading) {
      sections.push({ kind: 'heading', label: body, offset: text.length, level: block.heading });
      text += `${'#'.repeat(block.heading)} ${body}`;
    } else text += body;
  }
  return { text, sections };
}
