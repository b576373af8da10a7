import { ACTOR_TYPES, MEMORY_TYPES } from '@memory/store';
import { z } from 'zod';

// Transport schemas: the shapes a request may have, published in `/openapi.json`. They check types
// and shapes; the engine then applies its own rules (byte caps, label rules, config limits) to every
// call, exactly as for an in-process caller, and its `INVALID_INPUT` is answered with a 400 too.

/** A time as JSON can carry it: epoch milliseconds or an ISO-8601 string. */
export const timeValue = z
  .union([z.number(), z.string()])
  .meta({ description: 'Epoch milliseconds or an ISO-8601 string' });

/** A whole number in a query string. */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d{1,16}$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** `true` or `false` in a query string. */
export const queryBool = z
  .enum(['true', 'false'], { error: 'must be true or false' })
  .transform((value) => value === 'true');

/** The `agentId` every scoped route takes; optional when the token covers exactly one agent. */
export const agentQuery = z
  .string()
  .min(1)
  .meta({ description: 'The agent to act for; may be left out when the token covers one agent' });

const actor = z.strictObject({ id: z.string(), type: z.enum(ACTOR_TYPES).optional() });
const audit = {
  /** Who is making the change. @default the agent */
  actor: actor.optional(),
  sessionId: z.string().optional(),
  requestId: z.string().optional(),
};
const linkedEntity = z.strictObject({ type: z.string(), refId: z.string(), label: z.string().optional() });
const memoryType = z.enum(MEMORY_TYPES);

export const idParams = z.strictObject({ id: z.string().min(1) });

export const rememberBody = z.strictObject({
  content: z.string().meta({ description: 'What to remember' }),
  type: memoryType.optional(),
  importance: z.number().min(0).max(1).optional(),
  confidence: z.number().min(0).max(1).optional(),
  category: z.string().optional(),
  tags: z.array(z.string()).optional(),
  project: z.string().optional(),
  who: z.string().optional(),
  why: z.string().optional(),
  source: z.strictObject({ type: z.string(), id: z.string() }).optional(),
  linkedEntities: z.array(linkedEntity).optional(),
  pinned: z.boolean().optional(),
  createdAt: timeValue.optional(),
  expiresAt: timeValue.optional(),
  conflict: z
    .boolean()
    .optional()
    .meta({ description: 'false: always add, even when it restates or updates an existing memory' }),
  ...audit,
});

export const modifyBody = z.strictObject({
  reason: z.string().meta({ description: 'Why, for the history' }),
  content: z.string().optional(),
  importance: z.number().min(0).max(1).optional(),
  tags: z.array(z.string()).optional(),
  pinned: z.boolean().optional(),
  ...audit,
});

export const forgetBody = z.strictObject({
  reason: z.string(),
  /** Needed for pinned memories. */
  force: z.boolean().optional(),
  ...audit,
});

export const recoverBody = z.strictObject({ reason: z.string().optional(), ...audit });

export const listMemoriesQuery = z.strictObject({
  cursor: z.string().optional(),
  limit: queryInt(1, 500).optional(),
  includeDeleted: queryBool.optional(),
});

export const getMemoryQuery = z.strictObject({ includeDeleted: queryBool.optional() });

export const recallBody = z.strictObject({
  query: z.string(),
  limit: z.number().int().min(1).optional(),
  type: z.union([memoryType, z.array(memoryType)]).optional(),
  tags: z.array(z.string()).optional(),
  project: z.string().optional(),
  who: z.string().optional(),
  pinned: z.boolean().optional(),
  importanceMin: z.number().min(0).max(1).optional(),
  since: timeValue.optional(),
  until: timeValue.optional(),
  windowDays: z.number().positive().nullable().optional(),
  recentOnly: z.boolean().optional(),
  linkedEntities: z.array(z.strictObject({ type: z.string(), refId: z.string() })).optional(),
  include: z
    .array(z.enum(['memories', 'notes']))
    .optional()
    .meta({
      description:
        "What to return: memories, and working notes ranked with them (each result has a kind). Default ['memories']",
    }),
  expand: z.boolean().optional(),
  explain: z.boolean().optional(),
  asOf: timeValue.optional(),
  /** The query time ("as of"): the window ends there and recency counts from it. */
  now: timeValue.optional(),
  /** Also return the tiered, budgeted text of `formatRecall`. */
  format: z.boolean().optional(),
});

export const sessionParams = z.strictObject({ sessionKey: z.string().min(1) });

export const appendBody = z.strictObject({
  harness: z.string().optional(),
  project: z.string().optional(),
  turns: z.array(
    z.strictObject({
      /** user and assistant turns are kept; the others are accepted and dropped. */
      role: z.enum([
        'user',
        'assistant',
        'system',
        'tool',
        'tool_call',
        'tool_result',
        'function',
        'thinking',
        'reasoning',
      ]),
      content: z.string(),
      at: timeValue.optional(),
      id: z.string().optional(),
    }),
  ),
});

export const listTranscriptsQuery = z.strictObject({
  project: z.string().optional(),
  completed: queryBool.optional(),
  afterUpdatedAt: queryInt(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).optional(),
  afterSessionKey: z.string().optional(),
  limit: queryInt(1, 500).optional(),
});

export const searchTranscriptsBody = z.strictObject({
  query: z.string(),
  /** @default true */
  completedOnly: z.boolean().optional(),
  limit: z.number().int().min(1).optional(),
});

export const addDocumentBody = z.union([
  z.strictObject({ url: z.string(), title: z.string().optional(), project: z.string().optional() }),
  z.strictObject({
    content: z.string(),
    contentType: z.enum(['text/plain', 'text/markdown', 'text/html', 'application/json']).optional(),
    title: z.string().optional(),
    project: z.string().optional(),
  }),
]);

export const listDocumentsQuery = z.strictObject({
  status: z.enum(['queued', 'extracting', 'chunking', 'embedding', 'indexing', 'done', 'failed', 'deleted']).optional(),
  limit: queryInt(1, 500).optional(),
});

export const importParams = z.strictObject({ jobId: z.string().min(1) });

export const importRecordsQuery = z.strictObject({
  outcome: z.enum(['pending', 'imported', 'duplicate', 'rejected']).optional(),
  afterLine: queryInt(-1, Number.MAX_SAFE_INTEGER).optional(),
  limit: queryInt(1, 1000).optional(),
});

export const telemetryQuery = z.strictObject({ limit: queryInt(1, 10_000).optional() });
