// The steward's rules for what is not worth keeping, and for text that tries to instruct it.
// Model output is untrusted input: these run on every proposal, whatever the model says about it.

const PLEASANTRY_START =
  /^(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening|day|night)|bye|goodbye|ok|okay)\b/i;
const PLEASANTRY_REPORT =
  /\b(said|says|say|greeted|greets|thanked|thanks|wished|wishes|waved)\b.{0,30}\b(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening|day|night)|bye|goodbye|a (nice|good|great) (day|weekend|evening))\b/i;
const SMALL_TALK =
  /\b(how are you|small talk|chit-?chat|nice weather|the weather (is|was)|having a (nice|good|great) day)\b/i;
const TRANSIENT =
  /\b(right now|at the moment|just now|is typing|is (currently )?(online|offline|away)|this (morning|afternoon|evening))\b/i;

const INSTRUCTION_PATTERNS: readonly RegExp[] = [
  /\b(ignore|disregard|forget|override|bypass)\s+(all\s+|any\s+)?(of\s+)?(the\s+|your\s+|my\s+)?(previous|prior|above|earlier|system|original)\s+(instructions?|prompts?|rules?|messages?|directions?)/i,
  /\byou are now\b/i,
  /\b(new|updated) (system )?instructions?\s*:/i,
  /\bsystem prompt\b/i,
  /<\/?\s*(system|assistant|instructions?)\s*>/i,
  /\b(store|remember|save|record|add)\b.{0,40}\b(as|into|in)\s+(a\s+|an\s+|your\s+)?(durable\s+)?(memory|memories|operating[_ ]rule|preference|note)\b/i,
];

/** Why a proposal is not worth a durable memory, or undefined when it is. */
export function lowSignalReason(content: string, minWords: number): 'low_signal' | 'transient' | undefined {
  const words = content
    .trim()
    .split(/\s+/)
    .filter((w) => /[\p{L}\p{N}]/u.test(w));
  if (words.length < minWords) return 'low_signal';
  if (PLEASANTRY_START.test(content.trim()) || PLEASANTRY_REPORT.test(content) || SMALL_TALK.test(content))
    return 'low_signal';
  if (TRANSIENT.test(content)) return 'transient';
  return undefined;
}

/** Whether text reads as an instruction to the model (a prompt injection), not a fact. */
export function isInstructionLike(text: string): boolean {
  return INSTRUCTION_PATTERNS.some((p) => p.test(text));
}

const tokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? [];

/** The sentences of the task that read as instructions to the model. */
export function injectedSpans(taskText: string): string[] {
  return taskText
    .split(/(?<=[.!?\n])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && isInstructionLike(s));
}

/**
 * Whether a proposal was mostly copied out of an injected instruction: at least 60% of its words
 * (of three letters or more) occur in one such sentence of the task. A model that "obeys" an
 * injection usually restates its payload; a real fact from the same task rarely shares most of
 * its words with the injection.
 */
export function copiedFromInjection(content: string, spans: readonly string[]): boolean {
  const words = tokens(content);
  if (words.length === 0) return false;
  return spans.some((span) => {
    const inSpan = new Set(tokens(span));
    const shared = words.filter((w) => inSpan.has(w)).length;
    return shared / words.length >= 0.6;
  });
}
