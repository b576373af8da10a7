import { formatRecall, type MemoryEngine } from '@memory/engine';
import type { LanguageModelMiddleware } from 'ai';
import { type CallParams, lastUserMessage, userTurnId, withSystemBlock } from './prompt.js';

export interface MemoryMiddlewareOptions {
  /** The agent scope recall reads (and the transcript is written to). */
  readonly agentId: string;
  /** Size of the recalled context put into the prompt, in tokens (4 characters each). @default 800 */
  readonly budgetTokens?: number;
  /** Memories recall considers. @default 10 */
  readonly limit?: number;
  /**
   * Appends each turn (the last user message and the model's answer) to this session's transcript,
   * as evidence for later recall and Dreaming. The user message is kept once however many steps of
   * a tool loop (or resent histories) carry it. Off when absent.
   */
  readonly transcript?: { readonly sessionKey: string; readonly harness?: string; readonly project?: string };
  /**
   * Called when recall or the transcript append fails. The model call goes on without memory
   * (a memory outage should not take the chat down). @default ignore
   */
  readonly onError?: (error: unknown, during: 'recall' | 'transcript') => void;
}

/** The heading of the injected block: the model learns what the tiers mean. */
const HEADING =
  'Memories recalled for this conversation. LINKED CONTEXT is verified; POSSIBLY RELATED are matches by text or meaning and may not apply.';

// Recall refuses queries over `limits.maxQueryChars` (8,192 by default); the start of a long
// message carries its topic.
const MAX_QUERY_CHARS = 4000;

/**
 * A Vercel AI SDK language-model middleware that recalls memories for the last user message and
 * puts them, tiered and within `budgetTokens`, into the system prompt; optionally appends each turn
 * to the agent's session transcript. Use it with `wrapLanguageModel`.
 *
 * @example
 * ```ts
 * import { generateText, wrapLanguageModel } from 'ai';
 * const model = wrapLanguageModel({
 *   model: openai('gpt-4.1-mini'),
 *   middleware: memoryMiddleware(engine, { agentId: 'support-bot', transcript: { sessionKey: 'chat-42' } }),
 * });
 * const { text } = await generateText({ model, prompt: 'How should I email Dana?' });
 * ```
 */
export function memoryMiddleware(engine: MemoryEngine, options: MemoryMiddlewareOptions): LanguageModelMiddleware {
  const { agentId, transcript, onError } = options;
  const budgetTokens = options.budgetTokens ?? 800;
  const limit = options.limit ?? 10;

  const remembered = async (params: CallParams): Promise<CallParams> => {
    const query = lastUserMessage(params.prompt)?.text;
    if (query === undefined) return params;
    try {
      const response = await engine.recall({
        agentId,
        query: query.slice(0, MAX_QUERY_CHARS),
        limit,
        ...(params.abortSignal ? { signal: params.abortSignal } : {}),
      });
      if (response.results.length === 0) return params;
      const block = `${HEADING}\n${formatRecall(response, { budgetTokens })}`;
      return { ...params, prompt: withSystemBlock(params.prompt, block) };
    } catch (error) {
      onError?.(error, 'recall');
      return params;
    }
  };

  const record = async (params: CallParams, answer: string): Promise<void> => {
    if (!transcript) return;
    const question = lastUserMessage(params.prompt);
    const turns = [
      ...(question === undefined
        ? []
        : [{ role: 'user' as const, content: question.text, id: userTurnId(question.index, question.text) }]),
      ...(answer.trim().length > 0 ? [{ role: 'assistant' as const, content: answer }] : []),
    ];
    if (turns.length === 0) return;
    try {
      await engine.transcripts.append({
        agentId,
        sessionKey: transcript.sessionKey,
        ...(transcript.harness === undefined ? {} : { harness: transcript.harness }),
        ...(transcript.project === undefined ? {} : { project: transcript.project }),
        turns,
      });
    } catch (error) {
      onError?.(error, 'transcript');
    }
  };

  return {
    specificationVersion: 'v3',
    transformParams: ({ params }) => remembered(params),
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const answer = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      await record(params, answer);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      if (!transcript) return result;
      let answer = '';
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === 'text-delta') answer += part.delta;
            controller.enqueue(part);
          },
          // The turn is recorded when the stream ends, before the caller sees the end.
          flush: () => record(params, answer),
        }),
      );
      return { ...result, stream };
    },
  };
}
