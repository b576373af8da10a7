import { createHash } from 'node:crypto';
import type { LanguageModelMiddleware } from 'ai';

/** The call options a language-model middleware sees (the SDK's `LanguageModelV3CallOptions`). */
export type CallParams = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Message = CallParams['prompt'][number];

/**
 * The last user message: its text parts joined, and which user message of the conversation it is
 * (counted among user messages only, so a system block added in front does not move it).
 */
export function lastUserMessage(prompt: CallParams['prompt']): { text: string; index: number } | undefined {
  const users = prompt.filter((m) => m.role === 'user');
  const last = users.at(-1);
  if (last?.role !== 'user') return undefined;
  const text = last.content
    .flatMap((part) => (part.type === 'text' ? [part.text] : []))
    .join('\n')
    .trim();
  return text.length > 0 ? { text, index: users.length - 1 } : undefined;
}

/**
 * A stable id for the `index`th user turn with `text`: the same message seen again (the next step
 * of a tool loop, or a host that resends the history) is the same turn, and the transcript keeps it
 * once.
 */
export function userTurnId(index: number, text: string): string {
  return `user-${index}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
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
