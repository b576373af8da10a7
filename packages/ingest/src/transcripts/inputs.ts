import {
  agentIdSchema,
  isWellFormedText,
  labelSchema,
  type MemoryConfig,
  sessionKeySchema,
  timeSchema,
  utf8Length,
} from '@memory/core';
import { z } from 'zod';

/** Roles that are memory evidence. */
export const KEPT_ROLES = ['user', 'assistant'] as const;
/** Roles accepted and dropped: tool calls, tool output and reasoning never become evidence. */
export const DROPPED_ROLES = [
  'system',
  'tool',
  'tool_call',
  'tool_result',
  'function',
  'thinking',
  'reasoning',
] as const;

export function createTranscriptSchemas(config: MemoryConfig) {
  const { maxTurnBytes, maxTurnsPerAppend } = config.transcripts;
  // The one rule for keys, shared with imports (their fallback keys included): what goes in can be read back.
  const sessionKey = sessionKeySchema;
  const turn = z.strictObject({
    role: z.enum([...KEPT_ROLES, ...DROPPED_ROLES], {
      error: `role must be one of: ${[...KEPT_ROLES, ...DROPPED_ROLES].join(', ')}`,
    }),
    /** Kept exactly as given: whitespace and line breaks are evidence too. */
    content: z
      .string({ error: 'content must be a string' })
      .refine((s) => utf8Length(s) <= maxTurnBytes, `a turn must be at most ${maxTurnBytes} bytes (UTF-8)`)
      .refine(isWellFormedText, 'content must be well-formed Unicode (it holds a lone surrogate)'),
    /** When the turn was said. */
    at: timeSchema.optional(),
    /**
     * The host's id for the turn. Appends are idempotent per turn: a turn with an id already in the
     * session is skipped; without an id, a turn with the same role, content and `at` is.
     */
    id: labelSchema(256, 'turn id').optional(),
  });
  return {
    append: z.strictObject({
      agentId: agentIdSchema,
      sessionKey,
      harness: labelSchema(128, 'harness').optional(),
      project: labelSchema(256, 'project').optional(),
      turns: z
        .array(turn)
        .min(1, 'append needs at least one turn')
        .max(maxTurnsPerAppend, `at most ${maxTurnsPerAppend} turns per append`),
    }),
    session: z.strictObject({ agentId: agentIdSchema, sessionKey }),
    list: z.strictObject({
      agentId: agentIdSchema,
      project: labelSchema(256, 'project').optional(),
      /** Only completed (true) or only open (false) sessions. */
      completed: z.boolean().optional(),
      /** The last session of the previous page: the next page starts after it. */
      after: z.strictObject({ updatedAt: z.number().int(), sessionKey }).optional(),
      /** @default 50 */
      limit: z.number().int().min(1).max(500).optional(),
    }),
    search: z.strictObject({
      agentId: agentIdSchema,
      query: z.string().min(1).max(config.limits.maxQueryChars),
      /** @default true */
      completedOnly: z.boolean().optional(),
      /** @default 10 */
      limit: z.number().int().min(1).max(config.recall.maxLimit).optional(),
    }),
  };
}

export type TranscriptSchemas = ReturnType<typeof createTranscriptSchemas>;
export type AppendInput = z.input<TranscriptSchemas['append']>;
export type SessionInput = z.input<TranscriptSchemas['session']>;
export type ListTranscriptsInput = z.input<TranscriptSchemas['list']>;
export type SearchTranscriptsInput = z.input<TranscriptSchemas['search']>;
