import {
  type ChatMessage,
  type EmbeddingProvider,
  type GenerateResult,
  type LlmProvider,
  MemoryError,
  type ToolCall,
  type Usage,
} from '@memory/core';
import { createHttpClient, type HttpClientOptions } from './http.js';

export interface OpenAICompatibleLlmOptions extends HttpClientOptions {
  /** The chat model, e.g. `gpt-4.1-mini`, `qwen3:8b`. */
  readonly model: string;
  /**
   * Name of the output-length field: OpenAI's current API wants `max_completion_tokens`; Ollama,
   * vLLM, LM Studio and llama.cpp accept `max_tokens`. @default 'max_tokens'
   */
  readonly maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

export interface OpenAICompatibleEmbedderOptions extends HttpClientOptions {
  /** The embedding model, e.g. `text-embedding-3-small`, `nomic-embed-text`. */
  readonly model: string;
  /** Vector length the model returns; declared, never probed. */
  readonly dimensions: number;
  /** Ask the server to shorten vectors to `dimensions` (OpenAI text-embedding-3 models). @default false */
  readonly sendDimensions?: boolean;
  /** Texts per request. @default 64 */
  readonly batchSize?: number;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function toWireMessage(message: ChatMessage): Json {
  if (message.role === 'tool')
    return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content };
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    return {
      role: 'assistant',
      content: message.content.length > 0 ? message.content : null,
      tool_calls: message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      })),
    };
  }
  return { role: message.role, content: message.content };
}

function malformed(what: string): MemoryError {
  return new MemoryError('PROVIDER_ERROR', `openai-compatible: malformed response (${what})`);
}

function parseToolCalls(value: unknown): ToolCall[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const calls: ToolCall[] = [];
  value.forEach((raw: unknown, i) => {
    if (!isObject(raw) || !isObject(raw['function'])) return;
    const fn = raw['function'];
    const name = fn['name'];
    if (typeof name !== 'string' || name.length === 0) return;
    const args = fn['arguments'];
    calls.push({
      id: typeof raw['id'] === 'string' && raw['id'].length > 0 ? raw['id'] : `call_${i}`,
      name,
      // Some servers return parsed objects instead of the JSON string the spec describes.
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    });
  });
  return calls.length > 0 ? calls : undefined;
}

function parseUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined;
  const input = value['prompt_tokens'];
  const output = value['completion_tokens'];
  return {
    ...(typeof input === 'number' ? { inputTokens: input } : {}),
    ...(typeof output === 'number' ? { outputTokens: output } : {}),
  };
}

/**
 * An {@link LlmProvider} for any server speaking the OpenAI chat-completions API: OpenAI, Ollama,
 * vLLM, LM Studio, the llama.cpp server. Tool calls, JSON mode, retries with backoff on 429/5xx,
 * per-attempt timeouts, AbortSignal. The text is returned as the model wrote it (`<think>` blocks
 * included): callers treat it as untrusted input.
 */
export function createOpenAICompatibleLlm(options: OpenAICompatibleLlmOptions): LlmProvider {
  if (typeof options.model !== 'string' || options.model.length === 0)
    throw new MemoryError('INVALID_CONFIG', 'openai-compatible: model is required');
  const http = createHttpClient(options, 'openai-compatible');
  const maxTokensField = options.maxTokensField ?? 'max_tokens';
  return {
    async generate(request, callOptions = {}): Promise<GenerateResult> {
      const body: Json = { model: options.model, messages: request.messages.map(toWireMessage) };
      if (request.tools && request.tools.length > 0) {
        body['tools'] = request.tools.map((tool) => ({
          type: 'function',
          function: { name: tool.name, description: tool.description, parameters: tool.parameters },
        }));
      }
      if (request.responseFormat === 'json') body['response_format'] = { type: 'json_object' };
      if (request.maxOutputTokens !== undefined) body[maxTokensField] = request.maxOutputTokens;
      if (request.temperature !== undefined) body['temperature'] = request.temperature;
      const answer = await http.post('chat/completions', body, callOptions.signal);
      if (!isObject(answer) || !Array.isArray(answer['choices'])) throw malformed('no choices');
      const choice: unknown = answer['choices'][0];
      if (!isObject(choice) || !isObject(choice['message'])) throw malformed('no message');
      const message = choice['message'];
      const content = message['content'];
      const toolCalls = parseToolCalls(message['tool_calls']);
      const usage = parseUsage(answer['usage']);
      return {
        text: typeof content === 'string' ? content : '',
        ...(toolCalls ? { toolCalls } : {}),
        ...(usage ? { usage } : {}),
      };
    },
  };
}

/** An {@link EmbeddingProvider} for any server speaking the OpenAI embeddings API. */
export function createOpenAICompatibleEmbedder(options: OpenAICompatibleEmbedderOptions): EmbeddingProvider {
  if (typeof options.model !== 'string' || options.model.length === 0)
    throw new MemoryError('INVALID_CONFIG', 'openai-compatible: model is required');
  if (!Number.isInteger(options.dimensions) || options.dimensions < 1)
    throw new MemoryError('INVALID_CONFIG', 'openai-compatible: dimensions must be a positive integer');
  const http = createHttpClient(options, 'openai-compatible embeddings');
  const batchSize = options.batchSize ?? 64;
  const { model, dimensions } = options;
  return {
    model,
    dimensions,
    async embed(texts, callOptions = {}) {
      const out: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        const input = texts.slice(start, start + batchSize);
        const body: Json = { model, input, encoding_format: 'float' };
        if (options.sendDimensions) body['dimensions'] = dimensions;
        const answer = await http.post('embeddings', body, callOptions.signal);
        if (!isObject(answer) || !Array.isArray(answer['data'])) throw malformed('no data');
        const rows = answer['data'].map((row: unknown, position) => {
          if (!isObject(row) || !Array.isArray(row['embedding'])) throw malformed('embedding is not an array');
          const index = typeof row['index'] === 'number' ? row['index'] : position;
          return { index, embedding: row['embedding'] as unknown[] };
        });
        rows.sort((a, b) => a.index - b.index);
        if (rows.length !== input.length) throw malformed(`expected ${input.length} embeddings, got ${rows.length}`);
        for (const row of rows) {
          if (row.embedding.length !== dimensions) {
            throw new MemoryError(
              'PROVIDER_ERROR',
              `openai-compatible embeddings: the model returned ${row.embedding.length} dimensions, configured ${dimensions}`,
            );
          }
          if (!row.embedding.every((x) => typeof x === 'number' && Number.isFinite(x)))
            throw malformed('non-numeric vector');
          out.push(Float32Array.from(row.embedding as number[]));
        }
      }
      return out;
    },
  };
}
