import { afterEach, describe, expect, it } from 'vitest';
import { createOpenAICompatibleEmbedder, createOpenAICompatibleLlm } from '../src/index.js';
import { hang, json, scriptedServer } from './http-server.js';

type Server = Awaited<ReturnType<typeof scriptedServer>>;
let server: Server | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const completion = (message: Record<string, unknown>, usage = { prompt_tokens: 30, completion_tokens: 9 }) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
  usage,
});

describe('OpenAI-compatible chat client', () => {
  it('sends messages, tools and JSON mode in the wire format and reads text, tool calls and usage', async () => {
    server = await scriptedServer([
      json(
        200,
        completion({
          content: '<think>which tool?</think>',
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'search', arguments: '{"q":"tea"}' } }],
        }),
      ),
    ]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-secret', model: 'qwen3:8b' });
    const result = await llm.generate({
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what does Alice drink?' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'search', arguments: '{"q":"alice"}' }] },
        { role: 'tool', toolCallId: 'call_1', content: 'Alice prefers tea' },
      ],
      tools: [
        {
          name: 'search',
          description: 'search memories',
          parameters: { type: 'object', properties: { q: { type: 'string' } } },
        },
      ],
      responseFormat: 'json',
      maxOutputTokens: 64,
      temperature: 0.2,
    });
    expect(result).toEqual({
      text: '<think>which tool?</think>',
      toolCalls: [{ id: 'call_9', name: 'search', arguments: '{"q":"tea"}' }],
      usage: { inputTokens: 30, outputTokens: 9 },
    });
    const [request] = server.requests;
    expect(request?.url).toBe('/v1/chat/completions');
    expect(request?.headers['authorization']).toBe('Bearer sk-secret');
    expect(request?.body).toEqual({
      model: 'qwen3:8b',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'what does Alice drink?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"alice"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'Alice prefers tea' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'search',
            description: 'search memories',
            parameters: { type: 'object', properties: { q: { type: 'string' } } },
          },
        },
      ],
      response_format: { type: 'json_object' },
      max_tokens: 64,
      temperature: 0.2,
    });
  });

  it('accepts servers that return null content and tool arguments as objects (some local servers do)', async () => {
    server = await scriptedServer([
      json(200, {
        choices: [
          { message: { content: null, tool_calls: [{ function: { name: 'flag', arguments: { subject: 'x' } } }] } },
        ],
      }),
    ]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'llama' });
    const result = await llm.generate({ messages: [{ role: 'user', content: 'go' }] });
    expect(result).toEqual({ text: '', toolCalls: [{ id: 'call_0', name: 'flag', arguments: '{"subject":"x"}' }] });
    expect(server.requests[0]?.headers['authorization']).toBeUndefined();
  });

  it('retries 429 (honouring Retry-After) and 5xx, then succeeds', async () => {
    server = await scriptedServer([
      json(429, { error: { message: 'rate limited' } }, { 'retry-after': '0' }),
      json(503, 'upstream unavailable'),
      json(200, completion({ content: 'ok' })),
    ]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseMs: 1 });
    expect((await llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).text).toBe('ok');
    expect(server.requests).toHaveLength(3);
  });

  it('reads a Retry-After date against the injected clock', async () => {
    const { createManualClock, createManualScheduler } = await import('@memory/core');
    const t0 = Date.UTC(2026, 0, 1);
    const clock = createManualClock(t0);
    const scheduler = createManualScheduler(clock);
    const arrivals: number[] = [];
    const at =
      (reply: ReturnType<typeof json>): ReturnType<typeof json> =>
      (req, res) => {
        arrivals.push(clock.now());
        reply(req, res);
      };
    server = await scriptedServer([
      at(json(503, 'busy', { 'retry-after': new Date(t0 + 7000).toUTCString() })),
      at(json(200, completion({ content: 'ok' }))),
    ]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm', clock, scheduler, retryBaseMs: 500 });
    const pending = llm.generate({ messages: [{ role: 'user', content: 'hi' }] });
    // Drive virtual time in 100 ms steps until the retry arrives; real I/O happens in between.
    for (let i = 0; i < 200 && arrivals.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 2));
      await scheduler.advance(100);
    }
    expect((await pending).text).toBe('ok');
    // The retry waited for the date the server named (7 s), not the 500 ms backoff.
    expect(arrivals[1]).toBeGreaterThanOrEqual(t0 + 7000);
  });

  it('gives up after maxRetries with the status and attempts in the error', async () => {
    server = await scriptedServer([json(500, { error: { message: 'boom' } })]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm', retryBaseMs: 1, maxRetries: 2 });
    await expect(llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      details: { status: 500, attempts: 3 },
    });
    expect(server.requests).toHaveLength(3);
  });

  it('does not retry a 400, and reports the server message without the key', async () => {
    server = await scriptedServer([json(400, { error: { message: "model 'nope' not found" } })]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, apiKey: 'sk-do-not-leak', model: 'nope' });
    const error = await llm.generate({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'PROVIDER_ERROR', message: expect.stringContaining("model 'nope' not found") });
    expect(JSON.stringify(error) + String((error as Error).message)).not.toContain('sk-do-not-leak');
    expect(server.requests).toHaveLength(1);
  });

  it('rejects a 200 with a body that is not a chat completion', async () => {
    server = await scriptedServer([json(200, '<html>proxy login</html>'), json(200, { choices: [] })]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm' });
    await expect(llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringMatching(/not JSON: "<html>proxy login<\/html>"/),
    });
    await expect(llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringMatching(/malformed/),
    });
  });

  it('times out an attempt that never answers', async () => {
    server = await scriptedServer([hang]);
    const llm = createOpenAICompatibleLlm({
      baseUrl: server.baseUrl,
      model: 'm',
      timeoutMs: 50,
      maxRetries: 1,
      retryBaseMs: 1,
    });
    await expect(llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringMatching(/timed out after 50 ms/),
    });
    expect(server.requests).toHaveLength(2);
  });

  it('stops at once when the caller aborts', async () => {
    server = await scriptedServer([hang]);
    const llm = createOpenAICompatibleLlm({ baseUrl: server.baseUrl, model: 'm', timeoutMs: 60_000 });
    const controller = new AbortController();
    const pending = llm.generate({ messages: [{ role: 'user', content: 'hi' }] }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ code: 'ABORTED', details: { reason: 'aborted' } });
    // Well before the 60 s request timeout (20 s absorbs a loaded machine).
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('refuses a bad configuration', () => {
    expect(() => createOpenAICompatibleLlm({ baseUrl: 'not a url', model: 'm' })).toThrow(
      expect.objectContaining({ code: 'INVALID_CONFIG' }),
    );
    expect(() => createOpenAICompatibleLlm({ baseUrl: 'ftp://x/v1', model: 'm' })).toThrow(/http or https/);
    expect(() => createOpenAICompatibleLlm({ baseUrl: 'http://x/v1', model: '' })).toThrow(/model/);
  });
});

describe('OpenAI-compatible embeddings client', () => {
  it('batches, puts vectors back in input order by index, and sends the model', async () => {
    server = await scriptedServer([
      (req, res) => {
        const input = (req.body as { input: string[] }).input;
        // Answer out of order: the client must sort by index.
        const data = input
          .map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 1] }))
          .reverse();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ data, model: 'nomic' }));
      },
    ]);
    const embedder = createOpenAICompatibleEmbedder({
      baseUrl: server.baseUrl,
      model: 'nomic-embed-text',
      dimensions: 3,
      batchSize: 2,
    });
    const vectors = await embedder.embed(['a', 'bb', 'ccc', 'dddd', 'eeeee']);
    expect(vectors.map((v) => [...v])).toEqual([
      [1, 0, 1],
      [2, 1, 1],
      [3, 0, 1],
      [4, 1, 1],
      [5, 0, 1],
    ]);
    expect(server.requests.map((r) => (r.body as { input: string[] }).input)).toEqual([
      ['a', 'bb'],
      ['ccc', 'dddd'],
      ['eeeee'],
    ]);
    expect(server.requests[0]?.body).toMatchObject({ model: 'nomic-embed-text', encoding_format: 'float' });
  });

  it('refuses vectors of the wrong size or with non-numbers', async () => {
    server = await scriptedServer([
      json(200, { data: [{ index: 0, embedding: [1, 2] }] }),
      json(200, { data: [{ index: 0, embedding: [1, 'x', 3] }] }),
    ]);
    const embedder = createOpenAICompatibleEmbedder({ baseUrl: server.baseUrl, model: 'e', dimensions: 3 });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringMatching(/2 dimensions, configured 3/),
    });
    await expect(embedder.embed(['x'])).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringMatching(/non-numeric/),
    });
  });
});
