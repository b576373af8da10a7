import * as ai from 'ai';
import { MockEmbeddingModelV3, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAiSdkEmbedder, createAiSdkLlm } from '../src/index.js';

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 7, text: 7, reasoning: undefined },
};

describe('Vercel AI SDK adapter', () => {
  it('passes messages and tools through and returns tool calls as JSON text', async () => {
    const seen: unknown[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        seen.push(options);
        return {
          content: [
            { type: 'text', text: '<think>plan</think>Looking it up.' },
            {
              type: 'tool-call',
              toolCallId: 'c1',
              toolName: 'search_evidence',
              input: JSON.stringify({ query: 'tea' }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      },
    });
    const llm = createAiSdkLlm({ ai, model });
    const result = await llm.generate({
      messages: [
        { role: 'system', content: 'You consolidate memories.' },
        { role: 'user', content: 'What does Alice drink?' },
        {
          role: 'assistant',
          content: '',
          toolCalls: [{ id: 'c0', name: 'search_evidence', arguments: '{"query":"alice"}' }],
        },
        { role: 'tool', toolCallId: 'c0', content: 'memory:1 Alice prefers tea' },
      ],
      tools: [
        {
          name: 'search_evidence',
          description: 'Search evidence',
          parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
        },
      ],
      maxOutputTokens: 100,
      temperature: 0,
    });
    expect(result.text).toBe('<think>plan</think>Looking it up.');
    expect(result.toolCalls).toEqual([{ id: 'c1', name: 'search_evidence', arguments: '{"query":"tea"}' }]);
    expect(result.usage).toEqual({ inputTokens: 12, outputTokens: 7 });
    const call = seen[0] as {
      prompt: Array<{ role: string; content: unknown }>;
      tools: Array<{ name: string }>;
      maxOutputTokens: number;
    };
    expect(call.prompt.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(call.prompt[0]?.content).toBe('You consolidate memories.');
    expect(JSON.stringify(call.prompt[3])).toContain('search_evidence');
    expect(call.tools.map((t) => t.name)).toEqual(['search_evidence']);
    expect(call.maxOutputTokens).toBe(100);
  });

  it('wraps model failures in PROVIDER_ERROR', async () => {
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        throw new Error('model overloaded');
      },
    });
    const llm = createAiSdkLlm({ ai, model, maxRetries: 0 });
    await expect(llm.generate({ messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({
      code: 'PROVIDER_ERROR',
      message: expect.stringContaining('model overloaded'),
    });
  });

  it('embeds through embedMany and checks the declared dimensions', async () => {
    const model = new MockEmbeddingModelV3({
      maxEmbeddingsPerCall: 10,
      doEmbed: async ({ values }) => ({ embeddings: values.map((v) => [v.length, 1, 0]), warnings: [] }),
    });
    const embedder = createAiSdkEmbedder({ ai, model, modelName: 'mock-3', dimensions: 3 });
    const vectors = await embedder.embed(['ab', 'abcd']);
    expect(vectors.map((v) => [...v])).toEqual([
      [2, 1, 0],
      [4, 1, 0],
    ]);
    const wrong = createAiSdkEmbedder({ ai, model, modelName: 'mock-4', dimensions: 4 });
    await expect(wrong.embed(['x'])).rejects.toMatchObject({ code: 'PROVIDER_ERROR' });
  });

  it('refuses to be built without the ai module', () => {
    expect(() => createAiSdkLlm({ ai: {} as never, model: {} })).toThrow(/import \* as ai/);
  });
});
