import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from './helpers.js';

/** A POST whose body is sent in chunks without a Content-Length (chunked transfer encoding). */
function postChunked(
  url: string,
  token: string,
  chunks: string[],
  contentType = 'application/json',
): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': contentType } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    // The server may answer and close before every chunk is written: that is the point.
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe('limits', () => {
  it('refuses a JSON body over maxBodyBytes, declared or chunked, and stores nothing', async () => {
    const { request, token, server, engine } = await startServer({ http: { maxBodyBytes: 4096 } });
    const t = await token(['bot']);
    const big = { content: 'x'.repeat(5000) };
    const declared = await request('POST', '/api/memories', { token: t, body: big });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String), details: { maxBytes: 4096 } },
    });
    const json = JSON.stringify(big);
    const chunked = await postChunked(`${server.url}/api/memories`, t, [json.slice(0, 3000), json.slice(3000)]);
    expect(chunked).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    // Just under the cap goes through.
    const fits = await request('POST', '/api/memories', { token: t, body: { content: 'y'.repeat(4000) } });
    expect(fits.status).toBe(201);
    expect((await engine.list({ agentId: 'bot' })).memories).toHaveLength(1);
  });

  it('documents have their own cap', async () => {
    const { request, token } = await startServer({ http: { maxBodyBytes: 2048, maxDocumentBytes: 8192 } });
    const t = await token(['bot']);
    const ok = await request('POST', '/api/documents', { token: t, body: { content: 'z '.repeat(2000) } });
    expect(ok.status).toBe(202);
    const over = await request('POST', '/api/documents', { token: t, body: { content: 'z '.repeat(5000) } });
    expect(over.status).toBe(413);
  });

  it('stops an import upload at maxUploadBytes and queues nothing', async () => {
    const { request, token, server, engine, spoolDirectory } = await startServer({ http: { maxUploadBytes: 2048 } });
    const t = await token(['bot']);
    const line = `${JSON.stringify({ id: 'r', filler: 'q'.repeat(900) })}\n`;
    const declared = await request('POST', '/api/imports', { token: t, raw: line.repeat(3) });
    expect([declared.status, declared.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    const streamed = await postChunked(`${server.url}/api/imports`, t, [line, line, line], 'application/x-ndjson');
    expect(streamed).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    const diagnostics = await engine.diagnostics();
    expect(diagnostics.queue.find((q) => q.jobType === 'transcript_import')).toBeUndefined();
    expect(readdirSync(spoolDirectory)).toEqual([]); // the partial spool file is removed
  });

  it('limits requests per token per window, with Retry-After, and each token separately', async () => {
    const { request, token, clock } = await startServer({ http: { rateLimit: { requests: 3, windowMs: 10_000 } } });
    const a = await token(['a']);
    const b = await token(['b']);
    for (let i = 0; i < 3; i++) expect((await request('GET', '/api/memories', { token: a })).status).toBe(200);
    clock.advance(4000);
    const limited = await request('GET', '/api/memories', { token: a });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('6');
    expect(limited.body).toEqual({
      error: { code: 'RATE_LIMITED', message: expect.any(String), details: { retryAfterMs: 6000 } },
    });
    expect((await request('GET', '/api/memories', { token: b })).status).toBe(200);
    clock.advance(6000);
    expect((await request('GET', '/api/memories', { token: a })).status).toBe(200);
  });
});
