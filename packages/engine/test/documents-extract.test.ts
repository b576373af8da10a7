import { createManualClock, createManualScheduler, isMemoryError } from '@memory/core';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDocx, makeEncryptedPdf, makePdf } from '../../ingest/test/fixtures/make-documents.js';
import { startServer } from '../../ingest/test/http-server.js';
import { createTestEngine, T0 } from './helpers.js';

// Documents served by a real HTTP server on 127.0.0.1, extracted by their Content-Type.
let server: Awaited<ReturnType<typeof startServer>>;
let pdf: Uint8Array;
let scan: Uint8Array;
const docx = makeDocx([
  { text: 'Travel policy', heading: 1 },
  { text: 'Trains are booked in second class; flights need approval from the budget owner.' },
]);
const ARTICLE = `<html><head><title>Caf&eacute; notes</title></head><body>
<nav><a href="/">Home</a> <a href="/shop">Shop</a></nav><div class="cookie-banner">Accept cookies</div>
<article><h1>Caf&eacute; notes</h1><p>The espresso costs 3&nbsp;&euro; at the caf&eacute; on the third floor, and the
facilities team reviews the price every quarter with the vendor.</p></article><footer>&copy; Kestrel Inc.</footer></body></html>`;

const serve =
  (type: string, body: () => Uint8Array | string) =>
  (_req: unknown, res: { writeHead(s: number, h: object): void; end(b: Uint8Array | string): void }) => {
    res.writeHead(200, { 'content-type': type });
    res.end(body());
  };

beforeAll(async () => {
  pdf = await makePdf(
    ['Quarterly budget: the Kestrel project spends 40k on hosting.', 'Hiring: two engineers in March.'],
    'Kestrel Q3',
  );
  scan = await makePdf(['', '']);
  server = await startServer({
    '/report.pdf': serve('application/pdf', () => pdf),
    '/scan.pdf': serve('application/pdf', () => scan),
    '/locked.pdf': serve('application/pdf', () => makeEncryptedPdf()),
    '/policy.docx': serve('application/vnd.openxmlformats-officedocument.wordprocessingml.document', () => docx),
    '/sheet.xlsx': serve('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', () => 'PK'),
    '/article': serve('text/html; charset=utf-8', () => ARTICLE),
  } as never);
});
afterAll(async () => {
  await server.close();
});

async function docEngine() {
  const clock = createManualClock(T0);
  const { engine } = await createTestEngine({
    database: { database: new Database(':memory:') },
    clock,
    scheduler: createManualScheduler(clock),
    config: { documents: { allowList: ['127.0.0.1'], chunkSize: 400, chunkOverlap: 40, maxBytes: 1024 * 1024 } },
  });
  return engine;
}

async function chunksOf(engine: Awaited<ReturnType<typeof docEngine>>, query: string): Promise<string[]> {
  const { results } = await engine.recall({ agentId: 'a', query });
  return results.map((r) => r.content);
}

describe('documents: extraction by media type', () => {
  it('ingests a PDF URL with page markers, its title, and the conversion lineage', async () => {
    const engine = await docEngine();
    const { id } = await engine.documents.add({ agentId: 'a', url: server.url('/report.pdf') });
    await engine.runDue();
    const doc = await engine.documents.get({ agentId: 'a', id });
    expect(doc).toMatchObject({ status: 'done', title: 'Kestrel Q3', contentType: 'application/pdf', chunkCount: 1 });
    expect(doc?.extraction).toMatchObject({
      mediaType: 'application/pdf',
      extractor: 'unpdf',
      extractorVersion: '1.7.0',
      byteLength: pdf.byteLength,
      warnings: [],
    });
    expect(doc?.extraction?.byteHash).toMatch(/^[0-9a-f]{64}$/);
    expect(doc?.extraction?.sections.map((s) => s.label)).toEqual(['1', '2']);
    expect((await chunksOf(engine, 'hosting budget Kestrel'))[0]).toMatch(
      /^\[page 1\] Quarterly budget.*\[page 2\] Hiring/,
    );
  });

  it('ingests a DOCX URL and a cleaned HTML page (entities decoded, banners and navigation dropped)', async () => {
    const engine = await docEngine();
    const word = await engine.documents.add({ agentId: 'a', url: server.url('/policy.docx') });
    const page = await engine.documents.add({ agentId: 'a', url: server.url('/article') });
    await engine.runDue();
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id: word.id })).toMatchObject({
      status: 'done',
      title: 'Travel policy',
      extraction: { extractor: 'mammoth' },
    });
    expect(await engine.documents.get({ agentId: 'a', id: page.id })).toMatchObject({
      status: 'done',
      title: 'Café notes',
      extraction: { extractor: 'readability+linkedom', mediaType: 'text/html' },
    });
    expect((await chunksOf(engine, 'trains second class'))[0]).toMatch(/^# Travel policy Trains are booked/);
    const html = (await chunksOf(engine, 'espresso price'))[0] ?? '';
    expect(html).toContain('The espresso costs 3 € at the café');
    expect(html).not.toMatch(/Home|Shop|cookies|©|&[a-z]+;/);
  });

  it('fails a scanned PDF as having no text layer and an encrypted one as encrypted, without retrying', async () => {
    const engine = await docEngine();
    const scanned = await engine.documents.add({ agentId: 'a', url: server.url('/scan.pdf') });
    const locked = await engine.documents.add({ agentId: 'a', url: server.url('/locked.pdf') });
    await engine.runDue();
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id: scanned.id })).toMatchObject({
      status: 'failed',
      chunkCount: 0,
      error: expect.stringMatching(/no text layer/),
    });
    expect(await engine.jobs.get({ agentId: 'a', id: scanned.jobId })).toMatchObject({ status: 'dead', attempts: 1 });
    expect(await engine.documents.get({ agentId: 'a', id: locked.id })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/encrypted/),
    });
  });

  it('refuses a spreadsheet URL with the reason', async () => {
    const engine = await docEngine();
    const { id } = await engine.documents.add({ agentId: 'a', url: server.url('/sheet.xlsx') });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/spreadsheets \(\.xlsx\) are not extracted/),
    });
  });

  it('ingests bytes given with their media type, and validates both', async () => {
    const engine = await docEngine();
    const { id } = await engine.documents.add({
      agentId: 'a',
      bytes: pdf,
      mediaType: 'application/pdf; qs=1',
      title: 'Given',
    });
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'queued',
      sourceType: 'file',
      contentType: 'application/pdf',
      extraction: null,
    });
    await engine.runDue();
    expect(await engine.documents.get({ agentId: 'a', id })).toMatchObject({
      status: 'done',
      title: 'Given',
      extraction: { extractor: 'unpdf', byteLength: pdf.byteLength },
    });
    expect((await chunksOf(engine, 'hosting budget Kestrel'))[0]).toContain('[page 2] Hiring');

    const invalid = async (input: Record<string, unknown>): Promise<string> => {
      try {
        await engine.documents.add({ agentId: 'a', ...input } as never);
      } catch (error) {
        if (isMemoryError(error, 'INVALID_INPUT')) return error.message;
        throw error;
      }
      throw new Error('expected INVALID_INPUT');
    };
    expect(await invalid({ bytes: docx, mediaType: 'application/msword' })).toMatch(/legacy binary Word/);
    expect(await invalid({ bytes: docx, mediaType: 'image/png' })).toMatch(/not extracted/);
    expect(await invalid({ bytes: new Uint8Array(0), mediaType: 'application/pdf' })).toMatch(/must not be empty/);
    expect(await invalid({ bytes: new Uint8Array(1024 * 1024 + 1), mediaType: 'application/pdf' })).toMatch(
      /at most 1048576/,
    );
    expect(await invalid({ bytes: 'not bytes', mediaType: 'application/pdf' })).toBeTruthy();
  });
});
