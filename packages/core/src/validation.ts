import { z } from 'zod';
import { MemoryError } from './errors.js';
import { isWellFormedId } from './ids.js';
import { parseTime, timeProblem } from './parse-time.js';
import { utf8Length } from './text.js';
import { contentProblem, identifierProblem, labelProblem } from './text-rules.js';

/** An agent scope: 1–256 characters, no surrounding whitespace; see {@link identifierProblem}. */
export const agentIdSchema = z
  .string({ error: 'agentId must be a string' })
  .min(1, 'agentId must not be empty')
  .max(256, 'agentId must be at most 256 characters')
  .refine((s) => s.trim() === s, 'agentId must not have surrounding whitespace')
  .superRefine((s, ctx) => {
    const problem = identifierProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: `agentId ${problem}` });
  });

/** A key a host chooses (a session key, a dedup key): 1–`max` characters; see {@link identifierProblem}. */
export const keySchema = (max: number, what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .superRefine((s, ctx) => {
      const problem = identifierProblem(s);
      if (problem) ctx.addIssue({ code: 'custom', message: `${what} ${problem}` });
    });

/** An id this library minted (see `isWellFormedId`). */
export const idSchema = z.string({ error: 'id must be a string' }).refine(isWellFormedId, 'id is not a well-formed id');

/** A short label (project, who, tag, reference type...): 1–`max` characters; see {@link labelProblem}. */
export const labelSchema = (max: number, what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`)
    .superRefine((s, ctx) => {
      const problem = labelProblem(s);
      if (problem) ctx.addIssue({ code: 'custom', message: `${what} ${problem}` });
    });

/** Tags on a memory or note: up to `maxTags` labels of at most `maxTagLength` characters. */
export const tagsSchema = (limits: { readonly maxTags: number; readonly maxTagLength: number }) =>
  z
    .array(labelSchema(limits.maxTagLength, 'tag'), { error: 'tags must be an array of strings' })
    .max(limits.maxTags, `at most ${limits.maxTags} tags`);

/** Host-object references (`{ type, refId, label? }`) on a memory or note: up to `maxLinkedEntities`. */
export const linkedEntitiesSchema = (limits: { readonly maxLinkedEntities: number }) =>
  z
    .array(
      z.strictObject({
        type: labelSchema(64, 'linkedEntities[].type'),
        refId: labelSchema(256, 'linkedEntities[].refId'),
        label: labelSchema(256, 'linkedEntities[].label').optional(),
      }),
    )
    .max(limits.maxLinkedEntities, `at most ${limits.maxLinkedEntities} linked entities`);

/** The longest session key, in UTF-16 code units (what `String.length` counts). */
const MAX_SESSION_KEY_LENGTH = 512;

/**
 * The one rule for session keys, on every path in (append, import, import fallback keys) and out
 * (get, complete, list paging): 1–512 characters and {@link identifierProblem}'s rule (well-formed
 * Unicode: a lone surrogate would not survive SQLite's UTF-8 and the key could never be read back;
 * no control or bidi formatting characters; something visible).
 */
export function isValidSessionKey(key: string): boolean {
  return key.length >= 1 && key.length <= MAX_SESSION_KEY_LENGTH && identifierProblem(key) === undefined;
}

/** A session key checked by {@link isValidSessionKey}. */
export const sessionKeySchema = keySchema(MAX_SESSION_KEY_LENGTH, 'sessionKey');

/**
 * Content to store (a memory, a document): a string of at most `maxBytes` UTF-8 bytes that passes
 * {@link contentProblem} (well-formed, with a letter, digit or symbol).
 */
export const contentSchema = (maxBytes: number, what = 'content') =>
  z.string({ error: `${what} must be a string` }).superRefine((s, ctx) => {
    const problem = contentProblem(s);
    if (problem) ctx.addIssue({ code: 'custom', message: `${what} ${problem}` });
    else if (utf8Length(s) > maxBytes)
      ctx.addIssue({ code: 'custom', message: `${what} must be at most ${maxBytes} bytes (UTF-8)` });
  });

/**
 * A point in time: epoch milliseconds, a Date, or an ISO-8601 string, within `TIME_RANGE`
 * (0001-01-01 to 9999-12-31); parsed to epoch milliseconds. See {@link parseTime}.
 */
export const timeSchema = z
  .union([z.number(), z.date(), z.string()], { error: 'expected epoch milliseconds, a Date or an ISO-8601 string' })
  .transform((value, ctx) => {
    const ms = parseTime(value);
    if (ms === undefined) {
      ctx.addIssue({ code: 'custom', message: timeProblem(value) ?? 'not a valid time' });
      return z.NEVER;
    }
    return ms;
  });

/** The reason code of a record whose format `version` this library does not read. */
export const UNSUPPORTED_VERSION = 'unsupported_version';

/**
 * Why a record's `version` field is not one this reader supports, or undefined when it is (or is
 * absent: records written before the field existed are the first version). Numbers and their
 * decimal strings are the same version.
 *
 * @example
 * ```ts
 * versionProblem(record.version, [1]); // undefined for 1, '1' or no version; a reason otherwise
 * ```
 */
export function versionProblem(version: unknown, supported: readonly number[]): string | undefined {
  if (version === undefined || version === null) return undefined;
  const value = typeof version === 'string' && /^\d{1,9}$/.test(version) ? Number(version) : version;
  if (typeof value === 'number' && supported.includes(value)) return undefined;
  const shown = typeof version === 'string' ? JSON.stringify(version.slice(0, 32)) : String(version).slice(0, 32);
  return `version ${shown} is not supported (supported: ${supported.join(', ')})`;
}

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
