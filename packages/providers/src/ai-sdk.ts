import {
  type ChatMessage,
  type EmbeddingProvider,
  type GenerateResult,
  type LlmProvider,
  MemoryError,
  type ToolCall,
} from '@memory/core';

/**
 * The parts of the Vercel AI SDK (`ai`, v5 or later) the adapters call. Pass the module itself:
 * `import * as ai from 'ai'`. `ai` stays an optional peer dependency: nothing here imports it.
 */
export interface AiSdkModule {
  generateText(options: {
    model: never;
    system?: string;
    messages: never[];
    tools?: never;
    maxOutputTokens?: number;
    temperature?: number;
    abortSignal?: AbortSignal;
    maxRetries?: number;
  }): PromiseLike<{
    readonly text: string;
    readonly toolCalls: ReadonlyArray<{
      readonly toolCallId: string;
      readonly toolName: string;
      readonly input: unknown;
    }>;
    readonly usage?:
      | { readonly inputTokens?: number | undefined; readonly outputTokens?: number | undefined }
      | undefined;
  }>;
  embedMany(options: {
    model: never;
    values: string[];
    abortSignal?: AbortSignal;
    maxRetries?: number;
  }): PromiseLike<{ readonly embeddings: ReadonlyArray<ReadonlyArray<number>> }>;
  jsonSchema(schema: never): unknown;
  tool(definition: never): unknown;
}

export interface AiSdkLlmOptions {
  readonly ai: AiSdkModule;
  /** A `LanguageModel` from any AI SDK provider, e.g. `openai('gpt-4.1-mini')`. */
  readonly model: unknown;
  /** Retries the SDK makes itself. @default 2 */
  readonly maxRetries?: number;
}

export interface AiSdkEmbedderOptions {
  readonly ai: AiSdkModule;
  /** An `EmbeddingModel`, e.g. `openai.embedding('text-embedding-3-small')`. */
  readonly model: unknown;
  /** The name recorded with stored vectors. */
  readonly modelName: string;
  /** Vector length the model returns; declared, never probed. */
  readonly dimensions: number;
  /** @default 2 */
  readonly maxRetries?: number;
}

const JSON_INSTRUCTION = 'Reply with one JSON object and nothing else.';

function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return {};
  }
}

/**
 * Our chat messages as AI SDK input: system messages joined into `system` (the SDK warns about
 * system messages inside `messages`), tool results carrying the name of the call they answer.
 */
export function toAiSdkMessages(
  messages: readonly ChatMessage[],
  json: boolean,
): { system: string | undefined; messages: unknown[] } {
  const toolNames = new Map<string, string>();
  const system: string[] = [];
  const out: unknown[] = [];
  for (const m of messages) {
    if (m.role === 'system') {
      system.push(m.content);
      continue;
    }
    if (m.role === 'assistant' && m.toolCalls && m.toolCalls.length > 0) {
      for (const call of m.toolCalls) toolNames.set(call.id, call.name);
      out.push({
        role: 'assistant',
        content: [
          ...(m.content.length > 0 ? [{ type: 'text', text: m.content }] : []),
          ...m.toolCalls.map((call) => ({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: parseArguments(call.arguments),
          })),
        ],
      });
    } else if (m.role === 'tool') {
      const id = m.toolCallId ?? '';
      out.push({
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: id,
            toolName: toolNames.get(id) ?? 'unknown',
            output: { type: 'text', value: m.content },
          },
        ],
      });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  if (json) system.push(JSON_INSTRUCTION);
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out };
}

/** The HTTP side of an AI SDK error: `APICallError` directly, or as a `RetryError`'s `lastError`. */
function apiCallOf(error: unknown): { statusCode?: number; url?: string } | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const e = current as { statusCode?: unknown; url?: unknown; lastError?: unknown; cause?: unknown };
    if (typeof e.statusCode === 'number')
      return { statusCode: e.statusCode, ...(typeof e.url === 'string' ? { url: e.url } : {}) };
    current = e.lastError ?? e.cause;
  }
  return undefined;
}

/**
 * The SDK's error as a `PROVIDER_ERROR` that keeps the HTTP status (`details.status`); 401 and 403
 * say `retryable: false`, so a queued job fails at once instead of retrying a bad key.
 */
function providerError(error: unknown, what: string): MemoryError {
  const call = apiCallOf(error);
  const status = call?.statusCode;
  const auth = status === 401 || status === 403;
  const said = error instanceof Error ? error.message : String(error);
  return new MemoryError(
    'PROVIDER_ERROR',
    `ai-sdk ${what} failed${status === undefined ? '' : ` (HTTP ${status}${call?.url ? ` from ${call.url}` : ''})`}: ${said}`,
    {
      cause: error,
      details: {
        status: status ?? null,
        ...(auth ? { retryable: false, reason: 'unauthorized' } : {}),
      },
    },
  );
}

/**
 * An {@link LlmProvider} over an AI SDK `LanguageModel`. Tools are declared without `execute`, so
 * the SDK returns the model's tool calls for the caller to run (one step per `generate`).
 */
export function createAiSdkLlm(options: AiSdkLlmOptions): LlmProvider {
  const { ai, model } = options;
  if (typeof ai?.generateText !== 'function' || typeof ai.tool !== 'function' || typeof ai.jsonSchema !== 'function') {
    throw new MemoryError('INVALID_CONFIG', "ai-sdk adapter needs the 'ai' module: import * as ai from 'ai'");
  }
  return {
    async generate(request, callOptions = {}): Promise<GenerateResult> {
      const tools =
        request.tools && request.tools.length > 0
          ? Object.fromEntries(
              request.tools.map((t) => [
                t.name,
                ai.tool({ description: t.description, inputSchema: ai.jsonSchema(t.parameters as never) } as never),
              ]),
            )
          : undefined;
      const prompt = toAiSdkMessages(request.messages, request.responseFormat === 'json');
      let result: Awaited<ReturnType<typeof ai.generateText>>;
      try {
        result = await ai.generateText({
          model: model as never,
          ...(prompt.system !== undefined ? { system: prompt.system } : {}),
          messages: prompt.messages as never[],
          ...(tools ? { tools: tools as never } : {}),
          ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
          ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
          ...(callOptions.signal ? { abortSignal: callOptions.signal } : {}),
          maxRetries: options.maxRetries ?? 2,
        });
      } catch (error) {
        throw providerError(error, 'generateText');
      }
      const toolCalls: ToolCall[] = result.toolCalls.map((c) => ({
        id: c.toolCallId,
        name: c.toolName,
        arguments: typeof c.input === 'string' ? c.input : JSON.stringify(c.input ?? {}),
      }));
      const usage = result.usage;
      return {
        text: result.text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
        ...(usage
          ? {
              usage: {
                ...(usage.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
                ...(usage.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
              },
            }
          : {}),
      };
    },
  };
}

/** An {@link EmbeddingProvider} over an AI SDK `EmbeddingModel`. */
export function createAiSdkEmbedder(options: AiSdkEmbedderOptions): EmbeddingProvider {
  const { ai, model, modelName, dimensions } = options;
  if (typeof ai?.embedMany !== 'function')
    throw new MemoryError('INVALID_CONFIG', "ai-sdk adapter needs the 'ai' module: import * as ai from 'ai'");
  if (typeof modelName !== 'string' || modelName.length === 0)
    throw new MemoryError('INVALID_CONFIG', 'ai-sdk embedder needs a modelName');
  if (!Number.isInteger(dimensions) || dimensions < 1)
    throw new MemoryError('INVALID_CONFIG', 'ai-sdk embedder dimensions must be a positive integer');
  return {
    model: modelName,
    dimensions,
    async embed(texts, callOptions = {}) {
      if (texts.length === 0) return [];
      let result: Awaited<ReturnType<typeof ai.embedMany>>;
      try {
        result = await ai.embedMany({
          model: model as never,
          values: [...texts],
          maxRetries: options.maxRetries ?? 2,
          ...(callOptions.signal ? { abortSignal: callOptions.signal } : {}),
        });
      } catch (error) {
        throw providerError(error, 'embedMany');
      }
      if (result.embeddings.length !== texts.length)
        throw new MemoryError(
          'PROVIDER_ERROR',
          `ai-sdk embedMany returned ${result.embeddings.length} vectors for ${texts.length} texts`,
        );
      return result.embeddings.map((v) => {
        if (v.length !== dimensions)
          throw new MemoryError(
            'PROVIDER_ERROR',
            `ai-sdk embedder returned ${v.length} dimensions, configured ${dimensions}`,
          );
        return Float32Array.from(v);
      });
    },
  };
}
