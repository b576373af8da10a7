/** One message of a chat exchange. */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
  /** For `role: 'tool'`: the id of the tool call this message answers. */
  readonly toolCallId?: string;
  /** For `role: 'assistant'`: tool calls the model made in this turn. */
  readonly toolCalls?: readonly ToolCall[];
}

/** A tool the model may call. `parameters` is a JSON Schema object. */
export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly parameters: Readonly<Record<string, unknown>>;
}

/** A tool call as the model returned it. `arguments` is untrusted text, parsed by the caller. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly arguments: string;
}

export interface Usage {
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

export interface GenerateRequest {
  readonly messages: readonly ChatMessage[];
  readonly tools?: readonly ToolSpec[];
  readonly responseFormat?: 'text' | 'json';
  readonly maxOutputTokens?: number;
  readonly temperature?: number;
}

export interface GenerateResult {
  readonly text: string;
  readonly toolCalls?: readonly ToolCall[];
  readonly usage?: Usage;
}

/**
 * A chat model. Its output is untrusted input: callers strip `<think>` blocks, parse leniently and
 * validate strictly.
 */
export interface LlmProvider {
  generate(request: GenerateRequest, options?: { signal?: AbortSignal }): Promise<GenerateResult>;
}

export interface EmbedOptions {
  readonly signal?: AbortSignal;
  /** Some models embed queries and documents differently. @default 'index' */
  readonly purpose?: 'index' | 'query';
}

/**
 * A text embedding model. Dimensions are declared, never probed. Its output is untrusted input:
 * plain `number[]` vectors are accepted at run time and converted; a vector of the wrong length or
 * with non-finite values is not stored (the memory is, without it, and is embedded again later).
 */
export interface EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number;
  /**
   * The cosine similarity at or above which two texts may be the same fact, calibrated for this
   * model (conflict detection on write). Optional: without it `remember.conflict.threshold` applies.
   */
  readonly conflictThreshold?: number;
  /** Returns one vector of `dimensions` floats per input text, in input order. */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
  /**
   * Optional: whether the embedder can work here (its model file loads, ...), checked without
   * embedding anything; rejects with the reason. The engine's diagnostics call it.
   */
  check?(): Promise<void>;
}
