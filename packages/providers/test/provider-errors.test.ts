import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMemoryError, type MemoryError } from '@memory/core';
import * as ai from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { createAiSdkLlm, createOpenAICompatibleEmbedder, createOpenAICompatibleLlm } from '../src/index.js';
import { json, scriptedServer } from './http-server.js';

type Server = Awaited<ReturnType<typeof scriptedServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const hi = { messages: [{ role: 'user' as const, content: 'hi' }] };

async function caught(promise: Promise<unknown>): Promise<MemoryError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isMemoryError(error)) throw new Error(`expected a MemoryError, got ${String(error)}`);
  return error;
}

/** A port on 127.0.0.1 that nothing listens on: bound once, then closed. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('actionable provider errors', () => {
  it('names host, port and ECONNREFUSED for a refused connection, not "fetch failed"', async () => {
    const port = await closedPort();
    const llm = createOpenAICompatibleLlm({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm', maxRetries: 0 });
    const error = await caught(llm.generate(hi));
    expect(error.code).toBe('PROVIDER_ERROR');
    expect(error.message).toContain(`127.0.0.1:${port} (ECONNREFUSED)`);
    expect(error.message).toMatch(/is the server running/);
    expect(error.message).not.toContain('fetch failed');
    expect(error.details).toMatchObject({ code: 'ECONNREFUSED', host: '127.0.0.1', port, status: null });
  });

  it('says content type and an excerpt when a wrong baseUrl answers with an HTML page', async () => {
    const page = '<!DOCTYPE html>\n<html><head><title>Acme Dashboard</title></head><body>Welcome</body></html>';
    server = await scriptedServer([
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(page);
      },
    ]);
    const embedder = createOpenAICompatibleEmbedder({
      baseUrl: server.baseUrl.replace(/\/v1$/, ''),
      model: 'e',
      dimensions: 3,
    });
    const error = await caught(embedder.embed(['x']));
    expect(error.message).toContain('text/html; charset=utf-8');
    expect(error.message).toContain('"<!DOCTYPE html> <html><head><title>Acme Dashboard</title>');
    expect(error.message).toMatch(/baseUrl points at a web page/);
    expect(error.details).toMatchObject({ status: 200, contentType: 'text/html; charset=utf-8' });
  });

  it('describes an HTML error page (a 404 from a web server) the same way', async () => {
    server = await scriptedServer([
      (_req, res) => {
        res.writeHead(404, { 'content-type': 'text/html' });
        res.end('<html><body><h1>404 Not Found</h1></body></html>');
      },
    ]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm' });
    const error = await caught(llm.generate(hi));
    expect(error.message).toMatch(
      /HTTP 404: .* answered 404 with text\/html, not JSON: "<html><body><h1>404 Not Found/,
    );
    expect(error.details).toMatchObject({ status: 404 });
  });

  it.each([401, 403])('fails a %i at once, marked not retryable, with what to check', async (status) => {
    server = await scriptedServer([json(status, { error: { message: 'Incorrect API key provided' } })]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-wrong', model: 'm', maxRetries: 3 });
    const error = await caught(llm.generate(hi));
    expect(server.requests).toHaveLength(1);
    expect(error.message).toContain(`HTTP ${status} (`);
    expect(error.message).toContain('Incorrect API key provided');
    expect(error.message).not.toContain('sk-wrong');
    expect(error.details).toMatchObject({ status, retryable: false, reason: 'unauthorized', attempts: 1 });
  });
});

/**
 * A language model that calls a real HTTP server and throws the SDK's `APICallError` for a non-2xx
 * answer, as every AI SDK provider does (through `postJsonToApi`).
 */
function httpModel(url: string) {
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const response = await fetch(url, { method: 'POST', body: '{}' });
      const responseBody = await response.text();
      throw new ai.APICallError({
        message: `Server said ${response.status}`,
        url,
        requestBodyValues: {},
        statusCode: response.status,
        responseBody,
        isRetryable: response.status === 429 || response.status >= 500,
      });
    },
  });
}

describe('AI SDK adapter errors', () => {
  it('keeps the HTTP status of the provider call, and marks 401 not retryable', async () => {
    server = await scriptedServer([json(401, { error: { message: 'bad key' } })]);
    const llm = createAiSdkLlm({ ai, model: httpModel(`${server.baseUrl}/chat/completions`), maxRetries: 2 });
    const error = await caught(llm.generate(hi));
    expect(error.details).toMatchObject({ status: 401, retryable: false });
    expect(error.message).toContain('(HTTP 401 from http://127.0.0.1:');
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the status through the SDK's own retries (RetryError → lastError)", async () => {
    server = await scriptedServer([json(503, { error: { message: 'overloaded' } })]);
    const llm = createAiSdkLlm({ ai, model: httpModel(`${server.baseUrl}/chat/completions`), maxRetries: 1 });
    const error = await caught(llm.generate(hi));
    expect(server.requests).toHaveLength(2);
    expect(error.details).toMatchObject({ status: 503 });
    expect(error.details['retryable']).toBeUndefined();
  });
});
