import { type ChatMessage, type LlmProvider, parseLenientJson, throwIfAborted } from '@memory/core';
import type { EngineContext } from '../context.js';
import { message } from './task-recall.js';

/** A steward model call's outcome: the parsed JSON, or why there is none (never thrown). */
export type ModelAnswer = { readonly json: unknown } | { readonly failure: string };

/**
 * One steward call to the host's model, under the shared LLM admission limit like every other
 * caller (hints, Dreaming). `<think>` blocks are stripped and JSON parsed leniently; a model error
 * or unparseable output is returned as a failure for the caller to log, never thrown. An aborted
 * signal does throw (`ABORTED`): that is the host's own request.
 */
export async function askModel(
  ctx: EngineContext,
  llm: LlmProvider,
  messages: readonly ChatMessage[],
  operation: string,
  signal: AbortSignal | undefined,
): Promise<ModelAnswer> {
  throwIfAborted(signal, operation);
  let text: string;
  try {
    const result = await ctx.background.admission.llm.add(() => {
      throwIfAborted(signal, operation);
      return llm.generate(
        { messages, responseFormat: 'json', maxOutputTokens: ctx.config.steward.maxOutputTokens, temperature: 0 },
        signal ? { signal } : {},
      );
    });
    text = typeof result?.text === 'string' ? result.text : '';
  } catch (error) {
    throwIfAborted(signal, operation);
    return { failure: `the model call failed: ${message(error)}` };
  }
  throwIfAborted(signal, operation);
  const json = parseLenientJson(text);
  if (json === undefined) return { failure: `the model answered no JSON (${text.length} characters)` };
  return { json };
}

/** The list under `key` in a model's JSON answer (or the answer itself when it is a list). */
export function listIn(json: unknown, key: string): unknown[] | undefined {
  if (Array.isArray(json)) return json;
  if (typeof json === 'object' && json !== null) {
    const value = (json as Record<string, unknown>)[key];
    if (Array.isArray(value)) return value;
  }
  return undefined;
}
