import { z } from 'zod';
import { MemoryError } from './errors.js';
import { isWellFormedId } from './ids.js';
import { isWellFormedText } from './text.js';

// Control characters other than tab/newline never belong in identifiers or labels.

const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/u;

/** An agent scope: 1–256 characters, no surrounding whitespace, no control characters. */
export const agentIdSchema = z
  .string({ error: 'agentId must be a string' })
  .min(1, 'agentId must not be empty')
  .max(256, 'agentId must be at most 256 characters')
  .refine(
    (s) => s.trim() === s && !CONTROL.test(s),
    'agentId must not have surrounding whitespace or control characters',
  );

/** An id this library minted (see `isWellFormedId`). */
export const idSchema = z.string({ error: 'id must be a string' }).refine(isWellFormedId, 'id is not a well-formed id');

/** A short label (project, who, tag, reference type...): 1–`max` characters, no control characters. */
export const labelSchema = (max: number, what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .refine((s) => !CONTROL.test(s), `${what} must not contain control characters`);

/** The longest session key, in UTF-16 code units (what `String.length` counts). */
const MAX_SESSION_KEY_LENGTH = 512;

/**
 * The one rule for session keys, on every path in (append, import, import fallback keys) and out
 * (get, complete, list paging): 1–512 characters, no control characters other than tab and
 * newline, well-formed Unicode (a lone surrogate would not survive SQLite's UTF-8 and the key could
 * never be read back).
 */
export function isValidSessionKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_SESSION_KEY_LENGTH && !CONTROL.test(key) && isWellFormedText(key);
}

/** A session key checked by {@link isValidSessionKey}. */
export const sessionKeySchema = z
  .string({ error: 'sessionKey must be a string' })
  .min(1, 'sessionKey must not be empty')
  .max(MAX_SESSION_KEY_LENGTH, `sessionKey must be at most ${MAX_SESSION_KEY_LENGTH} characters`)
  .refine(isValidSessionKey, 'sessionKey must not contain control characters or lone surrogates');

/** A point in time: epoch milliseconds, a Date, or an ISO-8601 string; parsed to epoch milliseconds. */
export const timeSchema = z
  .union([z.number().finite(), z.date(), z.string().min(1)], {
    error: 'expected epoch milliseconds, a Date or an ISO-8601 string',
  })
  .transform((value, ctx) => {
    const ms = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : value.getTime();
    if (!Number.isFinite(ms)) {
      ctx.addIssue({ code: 'custom', message: 'not a valid time' });
      return z.NEVER;
    }
    return ms;
  });

/**
 * Parses untrusted input with `schema`, throwing `INVALID_INPUT` with every problem listed.
 *
 * @example
 * ```ts
 * const { agentId } = parseInput(z.object({ agentId: agentIdSchema }), input, 'recall');
 * ```
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, operation: string): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw invalidInput(operation, parsed.error.issues, parsed.error);
}

/** The `INVALID_INPUT` error for a list of issues; `pathPrefix` is prepended to each issue's path. */
export function invalidInput(
  operation: string,
  issues: ReadonlyArray<{ readonly path: readonly PropertyKey[]; readonly message: string }>,
  cause?: unknown,
  pathPrefix: readonly PropertyKey[] = [],
): MemoryError {
  const lines = issues.map((i) => `${[...pathPrefix, ...i.path].map(String).join('.') || '(input)'}: ${i.message}`);
  return new MemoryError('INVALID_INPUT', `invalid input to ${operation}: ${lines.join('; ')}`, {
    cause,
    details: { operation, issues: lines },
  });
}
