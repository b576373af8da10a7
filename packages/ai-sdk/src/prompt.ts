import type { LanguageModelMiddleware } from 'ai';

/** The call options a language-model middleware sees (the SDK's `LanguageModelV3CallOptions`). */
export type CallParams = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Message = CallParams['prompt'][number];

/** The text of the last user message (its text parts joined), or undefined when there is none. */
export function lastUserText(prompt: CallParams['prompt']): string | undefined {
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i];
    if (message?.role !== 'user') continue;
    const text = message.content
      .flatMap((part) => (part.type === 'text' ? [part.text] : []))
      .join('\n')
      .trim();
    return text.length > 0 ? text : undefined;
  }
  return undefined;
}

/**
 * The prompt with `block` added to its system message: appended to a leading system message, or
 * as a new one in front. Never a system message between turns: several providers refuse those.
 */
export function withSystemBlock(prompt: CallParams['prompt'], block: string): CallParams['prompt'] {
  const first = prompt[0];
  if (first?.role === 'system') {
    const merged: Message = { ...first, content: `${first.content}\n\n${block}` };
    return [merged, ...prompt.slice(1)];
  }
  return [{ role: 'system', content: block }, ...prompt];
}
