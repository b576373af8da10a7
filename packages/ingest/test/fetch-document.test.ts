import { createManualClock, createManualScheduler, type ManualScheduler } from '@memory/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DocumentFetchError, type FetchOptions, fetchDocument } from '../src/documents/fetch-document.js';
import { startServer } from './http-server.js';

let server: Awaited<ReturnType<typeof startServer>>;
const pendingSlow: Array<() => void> = [];
let slowHit: () => void = () => undefined;

beforeAll(async () => {
  server = await startServer({
    '/text': (_req, res) => {
      res.setHeader('content-type', 'text/plain; charset=utf-8');
      res.end('plain body ✓');
    },
    '/latin1': (_req, res) => {
      res.setHeader('content-type', 'text/plain; charset=iso-8859-1');
      res.end(Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    },
    '/hop1': (_req, res) => {
      res.writeHead(302, { location: '/hop2' });
      res.end();
    },
    '/hop2': (_req, res) => {
      res.writeHead(301, { location: '/text' });
      res.end();
    },
    '/loop': (_req, res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    },
    '/to-metadata': (_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    },
    '/to-file': (_req, res) => {
      res.writeHead(302, { location: 'file:///etc/passwd' });
      res.end();
    },
    '/big-header': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '5000' });
      res.end('x'.repeat(5000));
    },
    '/big-stream': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length up front
      for (let i = 0; i < 10; i++) res.write('y'.repeat(500));
      res.end();
    },
    '/image': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(10));
    },
    '/unavailable': (_req, res) => {
      res.writeHead(503);
      res.end();
    },
    '/slow': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial');
      pendingSlow.push(() => res.end(' done'));
      slowHit();
    },
  });
});
afterAll(async () => {
  for (const finish of pendingSlow) finish();
  await server.close();
});

function options(
  overrides: Partial<Omit<FetchOptions, 'scheduler'>> = {},
): FetchOptions & { scheduler: ManualScheduler } {
  const clock = createManualClock(0);
  const scheduler = createManualScheduler(clock);
  return { maxBytes: 1000, timeoutMs: 30_000, maxRedirects: 5, allowList: ['127.0.0.1'], ...overrides, scheduler };
}

async function failure(url: string, opts = options()): Promise<DocumentFetchError> {
  try {
    await fetchDocument(url, opts);
  } catch (error) {
    if (error instanceof DocumentFetchError) return error;
    throw error;
  }
  throw new Error(`expected ${url} to fail`);
}

describe('fetchDocument against a real server on 127.0.0.1', () => {
  it('fetches text and decodes its charset', async () => {
    const fetched = await fetchDocument(server.url('/text'), options());
    expect(fetched).toEqual({
      url: server.url('/text'),
      contentType: 'text/plain',
      body: 'plain body ✓',
      bytes: expect.any(Uint8Array),
      charset: 'utf-8',
    });
    expect(Buffer.from(fetched.bytes).toString('utf8')).toBe('plain body ✓');
    expect((await fetchDocument(server.url('/latin1'), options())).body).toBe('café');
  });

  it('follows redirects, re-checking each one', async () => {
    expect((await fetchDocument(server.url('/hop1'), options())).url).toBe(server.url('/text'));
    expect(await failure(server.url('/hop1'), options({ maxRedirects: 1 }))).toMatchObject({
      reason: 'too-many-redirects',
      permanent: true,
    });
    expect(await failure(server.url('/loop'))).toMatchObject({ reason: 'too-many-redirects' });
    expect(await failure(server.url('/to-metadata'))).toMatchObject({
      reason: 'refused-address',
      permanent: true,
      message: expect.stringMatching(/link-local/),
    });
    expect(await failure(server.url('/to-file'))).toMatchObject({ reason: 'bad-url', permanent: true });
  });

  it('refuses loopback without the allow-list, by address and by DNS name', async () => {
    expect(await failure(server.url('/text'), options({ allowList: [] }))).toMatchObject({
      reason: 'refused-address',
      message: expect.stringMatching(/loopback/),
    });
    const byName = server.url('/text').replace('127.0.0.1', 'localhost');
    expect(await failure(byName, options({ allowList: [] }))).toMatchObject({ reason: 'refused-address' });
    expect(await failure('http://[::1]:9/x', options({ allowList: [] }))).toMatchObject({ reason: 'refused-address' });
    expect(await failure('http://[::ffff:127.0.0.1]:9/x', options({ allowList: [] }))).toMatchObject({
      reason: 'refused-address',
    });
    expect(await failure('ftp://example.com/x')).toMatchObject({ reason: 'bad-url' });
    expect(await failure('http://user:pw@127.0.0.1/x')).toMatchObject({ reason: 'bad-url' });
    expect(server.hits.filter((h) => h === '/text').length).toBeGreaterThan(0);
  });

  it('enforces the byte limit on the header and while streaming', async () => {
    expect(await failure(server.url('/big-header'))).toMatchObject({
      reason: 'too-large',
      message: expect.stringMatching(/Content-Length/),
    });
    expect(await failure(server.url('/big-stream'))).toMatchObject({
      reason: 'too-large',
      message: expect.stringMatching(/larger than 1000/),
    });
  });

  it('refuses unsupported content types; 4xx is permanent, 5xx is retried', async () => {
    expect(await failure(server.url('/image'))).toMatchObject({ reason: 'unsupported-type', permanent: true });
    expect(await failure(server.url('/nope'))).toMatchObject({
      reason: 'http-status',
      permanent: true,
      message: `HTTP 404 from ${server.url('').replace('http://', '')}`,
    });
    expect(await failure(server.url('/unavailable'))).toMatchObject({ reason: 'http-status', permanent: false });
  });

  it('times out a slow server on the injected scheduler', async () => {
    const opts = options({ timeoutMs: 30_000 });
    const reached = new Promise<void>((resolve) => {
      slowHit = resolve;
    });
    const pending = fetchDocument(server.url('/slow'), opts).then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await reached; // the server is sending, slowly; now let virtual time run out
    await opts.scheduler.advance(30_000);
    expect(await pending).toMatchObject({ reason: 'timeout', permanent: false });
  });
});
