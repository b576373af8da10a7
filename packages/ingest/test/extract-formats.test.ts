import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createTimerScheduler } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { extract } from '../src/extract/extract.js';
import { ExtractError, type ExtractFailure, MEDIA } from '../src/extract/extract-types.js';
import { LIBRARY_VERSIONS } from '../src/extract/library-versions.js';
import { makeDocx, makeDocxBomb, makeEncryptedPdf, makeMalformedPdf, makePdf } from './fixtures/make-documents.js';

const scheduler = createTimerScheduler();
const run = (bytes: Uint8Array, type: string, limits = {}) => extract(bytes, type, { scheduler, limits });

async function failure(promise: Promise<unknown>): Promise<{ reason: ExtractFailure; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ExtractError) return { reason: error.reason, message: error.message };
    throw error;
  }
  throw new Error('expected an ExtractError');
}

describe('extract: PDF (unpdf, in a worker)', () => {
  it('keeps each page behind a [page N] marker that is also a section, and the PDF title', async () => {
    const bytes = await makePdf(['Budget review for Kestrel', 'Hiring plan: two engineers'], 'Kestrel report');
    const result = await run(bytes, MEDIA.pdf);
    expect(result.text).toBe('[page 1]\n\nBudget review for Kestrel\n\n[page 2]\n\nHiring plan: two engineers');
    expect(result.title).toBe('Kestrel report');
    expect(result.sections).toEqual([
      { kind: 'page', label: '1', offset: 0 },
      { kind: 'page', label: '2', offset: result.text.indexOf('[page 2]') },
    ]);
    expect(result).toMatchObject({ extractor: 'unpdf', extractorVersion: '1.7.0', warnings: [] });
  });

  it('names pages without a text layer in the warnings', async () => {
    const result = await run(await makePdf(['Cover text', '', 'Appendix text']), MEDIA.pdf);
    expect(result.text).toContain('[page 3]\n\nAppendix text');
    expect(result.text).not.toContain('[page 2]');
    expect(result.warnings).toEqual(['1 of 3 page(s) have no text layer: 2']);
  });

  it('reports a PDF without any text layer (a scan) as no-text-layer, never as an empty text', async () => {
    const { reason, message } = await failure(run(await makePdf(['', '']), MEDIA.pdf));
    expect(reason).toBe('no-text-layer');
    expect(message).toMatch(/no text layer on any of its 2 page/);
  });

  it('gives typed errors for a malformed PDF, bytes that are not a PDF, and an encrypted PDF', async () => {
    expect(await failure(run(makeMalformedPdf(), MEDIA.pdf))).toMatchObject({ reason: 'malformed' });
    expect(await failure(run(Buffer.from('hello, not a pdf'), MEDIA.pdf))).toMatchObject({
      reason: 'malformed',
      message: expect.stringMatching(/no %PDF- header/),
    });
    expect(await failure(run(makeEncryptedPdf(), MEDIA.pdf))).toMatchObject({
      reason: 'encrypted',
      message: expect.stringMatching(/encrypted/),
    });
  });

  it('stops an extraction past its time limit and refuses bytes over the size limit', async () => {
    const bytes = await makePdf(['some text']);
    expect(await failure(run(bytes, MEDIA.pdf, { timeoutMs: 1 }))).toMatchObject({ reason: 'timeout' });
    expect(await failure(run(bytes, MEDIA.pdf, { maxBytes: 100 }))).toMatchObject({
      reason: 'too-large',
      message: expect.stringMatching(/over the 100-byte limit/),
    });
  });
});

describe('extract: DOCX (mammoth, in a worker)', () => {
  it('turns Word headings into Markdown headings and sections, paragraphs into paragraphs', async () => {
    const bytes = makeDocx([
      { text: 'Quarterly plan', heading: 1 },
      { text: 'The café budget is 12 € per head & month.' },
      { text: 'Hiring', heading: 2 },
      { text: 'Two engineers join in March.' },
    ]);
    const result = await run(bytes, MEDIA.docx);
    expect(result.text).toBe(
      '# Quarterly plan\n\nThe café budget is 12 € per head & month.\n\n## Hiring\n\nTwo engineers join in March.',
    );
    expect(result.title).toBe('Quarterly plan');
    expect(result.sections.map((s) => [s.label, s.level])).toEqual([
      ['Quarterly plan', 1],
      ['Hiring', 2],
    ]);
    expect(result).toMatchObject({ extractor: 'mammoth', extractorVersion: '1.13.0' });
  });

  it('refuses a zip bomb disguised as a DOCX by its unpacked size, before inflating it', async () => {
    const bomb = makeDocxBomb(24);
    expect(bomb.byteLength).toBeLessThan(200 * 1024);
    const started = performance.now();
    expect(await failure(run(bomb, MEDIA.docx, { maxUnpackedBytes: 16 * 1024 * 1024 }))).toMatchObject({
      reason: 'archive-limits',
      message: expect.stringMatching(/unpacks to more than 16777216 bytes/),
    });
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('stops a bomb under the archive limit by the worker heap or time limit, not the host', async () => {
    const bomb = makeDocxBomb(48);
    const { reason } = await failure(
      run(bomb, MEDIA.docx, { maxUnpackedBytes: 1024 ** 3, workerHeapMb: 64, timeoutMs: 15_000 }),
    );
    expect(['too-large', 'timeout']).toContain(reason);
  });

  it('gives a typed error for a zip that is no DOCX and for bytes that are no zip', async () => {
    expect(await failure(run(makeDocxBomb(0).subarray(0, 40), MEDIA.docx))).toMatchObject({ reason: 'malformed' });
    expect(await failure(run(Buffer.from('plain text'), MEDIA.docx))).toMatchObject({
      reason: 'malformed',
      message: expect.stringMatching(/not a zip/),
    });
  });
});

describe('extract: types', () => {
  it('refuses other Office formats with the reason, and unknown types', async () => {
    for (const type of [
      'application/msword',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ]) {
      expect(await failure(run(Buffer.from('x'), type))).toMatchObject({
        reason: 'unsupported-type',
        message: expect.stringMatching(/is refused: .*(DOCX|CSV|PDF)/),
      });
    }
    expect(await failure(run(Buffer.from('x'), 'image/png'))).toMatchObject({ reason: 'unsupported-type' });
  });

  it('reads text, Markdown and JSON in-process as before', async () => {
    expect(await run(Buffer.from('# Notes\n\nbody'), 'text/markdown')).toMatchObject({
      text: '# Notes\n\nbody',
      title: 'Notes',
      extractor: 'text',
    });
    expect(await run(Buffer.from('{"a":1}'), 'application/json')).toMatchObject({
      text: '{\n  "a": 1\n}',
      extractor: 'json',
    });
  });

  it('records the installed versions of the extraction libraries', () => {
    const require = createRequire(import.meta.url);
    for (const [name, version] of Object.entries(LIBRARY_VERSIONS)) {
      const main = require.resolve(name);
      const root = main.slice(0, main.lastIndexOf(`/node_modules/${name}/`) + `/node_modules/${name}/`.length);
      expect(JSON.parse(readFileSync(`${root}package.json`, 'utf8')).version, name).toBe(version);
    }
  });
});
