import { describe, expect, it } from 'vitest';
import { mediaTypeOf } from '../src/connectors/folder-kind.js';
import { globMatcher, globToRegExp } from '../src/connectors/glob.js';
import { locateChunks } from '../src/documents/chunk-location.js';
import { chunkSpansSliced, chunkText } from '../src/documents/chunk-text.js';

describe('glob patterns', () => {
  it('keeps * and ? inside a segment, lets ** span segments, and reads {a,b} as either', () => {
    const cases: Array<[string, string, boolean]> = [
      ['*.md', 'a.md', true],
      ['*.md', 'dir/a.md', false],
      ['**/*.md', 'a.md', true],
      ['**/*.md', 'x/y/a.md', true],
      ['docs/**', 'docs/a/b.txt', true],
      ['docs/**', 'other/docs/a.txt', false],
      ['**/.git/**', '.git/config', true],
      ['**/.git/**', 'a/.git/HEAD', true],
      ['**/.git/**', 'a/git/HEAD', false],
      ['f?.txt', 'f1.txt', true],
      ['f?.txt', 'f12.txt', false],
      ['f?.txt', 'f/.txt', false],
      ['**/*.{md,pdf}', 'r/q.pdf', true],
      ['**/*.{md,pdf}', 'r/q.docx', false],
      ['a+b(1).md', 'a+b(1).md', true],
      ['a.md', 'aXmd', false],
    ];
    for (const [pattern, path, expected] of cases)
      expect(globToRegExp(pattern).test(path), `${pattern} ~ ${path}`).toBe(expected);
  });

  it('matches a pattern without a slash against the file name anywhere', () => {
    const match = globMatcher(['*.md', 'reports/*.pdf']);
    expect(match('notes/deep/a.md')).toBe(true);
    expect(match('reports/q3.pdf')).toBe(true);
    expect(match('old/reports/q3.pdf')).toBe(false);
    expect(match('notes/a.txt')).toBe(false);
    expect(globMatcher([])('a.md')).toBe(false);
  });

  it('knows media types by extension, case-insensitively', () => {
    expect(mediaTypeOf('A.PDF')).toBe('application/pdf');
    expect(mediaTypeOf('notes.markdown')).toBe('text/markdown');
    expect(mediaTypeOf('page.htm')).toBe('text/html');
    expect(mediaTypeOf('Makefile')).toBeUndefined();
    expect(mediaTypeOf('photo.png')).toBeUndefined();
  });
});

describe('chunk locations', () => {
  it('gives each chunk the offset it starts at in the text', async () => {
    const text = `  \n${Array.from({ length: 40 }, (_, i) => `Sentence number ${i} is here.`).join(' ')}\n\n`;
    const spans = await chunkSpansSliced(text, 120, 20);
    expect(spans.map((s) => s.text)).toEqual(chunkText(text, 120, 20));
    for (const span of spans) expect(text.slice(span.start, span.start + span.text.length)).toBe(span.text);
  });

  it('places chunks on the page they start on, with the page they end on, under the nearest heading', () => {
    const sections = [
      { kind: 'page' as const, label: '1', offset: 0 },
      { kind: 'heading' as const, label: 'Intro', offset: 10, level: 1 },
      { kind: 'page' as const, label: '2', offset: 100 },
      { kind: 'heading' as const, label: 'Costs', offset: 150, level: 2 },
      { kind: 'page' as const, label: '3', offset: 200 },
    ];
    const spans = [
      { text: 'x'.repeat(50), start: 0 },
      { text: 'x'.repeat(50), start: 60 },
      { text: 'x'.repeat(40), start: 150 },
      { text: 'x'.repeat(40), start: 210 },
    ];
    expect(locateChunks(spans, sections)).toEqual([
      { page: 1, offset: 0 },
      { page: 1, pageEnd: 2, section: 'Intro', offset: 60 },
      { page: 2, section: 'Costs', offset: 150 },
      { page: 3, section: 'Costs', offset: 210 },
    ]);
    expect(locateChunks(spans.slice(0, 1), [])).toEqual([{ offset: 0 }]);
  });
});
