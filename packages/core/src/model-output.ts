/**
 * Model output is untrusted input. These helpers clean the text a model returns before anything
 * parses it; they never throw.
 */

const THINK_BLOCK = /<(think|thinking|reasoning)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
// A reasoning block the model opened but never closed swallows the rest of the output.
const UNCLOSED_THINK = /<(think|thinking|reasoning)\b[^>]*>[\s\S]*$/i;
// A stray closing tag: some servers strip the opening tag but keep the closing one.
const LEADING_CLOSE = /^[\s\S]*?<\/(think|thinking|reasoning)\s*>/i;

/** Removes `<think>` / `<thinking>` / `<reasoning>` blocks, closed or not, and stray closing tags. */
export function stripThinkBlocks(text: string): string {
  let out = text.replace(THINK_BLOCK, '');
  out = out.replace(LEADING_CLOSE, '');
  return out.replace(UNCLOSED_THINK, '').trim();
}

/**
 * Finds the first JSON value (object or array) in model text: inside a ```json fence, or the
 * outermost balanced braces. Returns `undefined` when nothing parses. Trailing commas are tolerated.
 */
export function parseLenientJson(text: string): unknown {
  const cleaned = stripThinkBlocks(text);
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(cleaned)?.[1];
  for (const candidate of [fenced, cleaned, balancedSpan(cleaned)]) {
    if (candidate === undefined) continue;
    const value = tryParse(candidate.trim());
    if (value !== undefined) return value;
  }
  return undefined;
}

function tryParse(text: string): unknown {
  if (text.length === 0) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    try {
      return JSON.parse(text.replace(/,\s*([}\]])/g, '$1')) as unknown;
    } catch {
      return undefined;
    }
  }
}

/** The first balanced `{...}` or `[...]` span, skipping brackets inside strings. */
function balancedSpan(text: string): string | undefined {
  const start = text.search(/[{[]/);
  if (start < 0) return undefined;
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') stack.push(ch === '{' ? '}' : ']');
    else if (ch === '}' || ch === ']') {
      if (stack.pop() !== ch) return undefined;
      if (stack.length === 0) return text.slice(start, i + 1);
    }
  }
  return undefined;
}
