import { z } from 'zod';

/**
 * The operations the Dreaming apply seam accepts: a zod discriminated union on `operation`. Model
 * output is untrusted, so every field is bounded and every object is strict (an invented field is
 * an error the model is told about, not something silently dropped).
 */

const id = (what: string) =>
  z
    .string({ error: `${what} must be a string id` })
    .min(1, `${what} must not be empty`)
    .max(200, `${what} is too long`);
const name = (what: string) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(200, `${what} must be at most 200 characters`);
const text = (what: string, max: number) =>
  z
    .string({ error: `${what} must be a string` })
    .trim()
    .min(1, `${what} must not be empty`)
    .max(max, `${what} must be at most ${max} characters`);
const time = (what: string) =>
  z
    .number({ error: `${what} must be epoch milliseconds` })
    .int(`${what} must be an integer`)
    .min(0)
    .max(8_640_000_000_000_000);
const unit = (what: string) =>
  z
    .number({ error: `${what} must be a number` })
    .min(0, `${what} must be 0..1`)
    .max(1, `${what} must be 0..1`);

/** `{ sourceRef, quote }`: a verbatim quote from evidence in the operation's scope. */
export const citationSchema = z.strictObject({
  sourceRef: z.string({ error: 'sourceRef must be a string like "transcript:<sessionKey>"' }).min(1).max(600),
  quote: z
    .string({ error: 'quote must be a string copied verbatim from the evidence' })
    .max(2000, 'quote must be at most 2000 characters'),
});

const claimTiming = {
  /** Event time: when the fact became true (epoch ms). */
  validFrom: time('validFrom').optional(),
  /** Event time: when it stopped being true. */
  validUntil: time('validUntil').optional(),
  /** When the thing happened, for events. */
  occurredAt: time('occurredAt').optional(),
  /** How precise the times are. */
  timePrecision: z.enum(['instant', 'day', 'month', 'year', 'approximate']).optional(),
};

const PAYLOADS = {
  create_entity: z.strictObject({
    name: name('name'),
    entityType: name('entityType').optional(),
    description: text('description', 1000).optional(),
    aliases: z.array(name('alias')).max(20).optional(),
  }),
  rename_entity: z.strictObject({ entityId: id('entityId'), name: name('name') }),
  archive_entity: z.strictObject({ entityId: id('entityId') }),
  merge_entities: z.strictObject({ sourceEntityId: id('sourceEntityId'), targetEntityId: id('targetEntityId') }),
  create_aspect: z.strictObject({ entityId: id('entityId'), name: name('name') }),
  rename_aspect: z.strictObject({ aspectId: id('aspectId'), name: name('name') }),
  archive_aspect: z.strictObject({ aspectId: id('aspectId') }),
  merge_aspects: z.strictObject({ sourceAspectId: id('sourceAspectId'), targetAspectId: id('targetAspectId') }),
  add_claim: z.strictObject({
    aspectId: id('aspectId'),
    claimKey: name('claimKey'),
    content: text('content', 2000),
    kind: z.enum(['attribute', 'constraint']).optional(),
    importance: unit('importance').optional(),
    ...claimTiming,
  }),
  set_claim: z.strictObject({
    aspectId: id('aspectId'),
    claimKey: name('claimKey'),
    content: text('content', 2000),
    kind: z.enum(['attribute', 'constraint']).optional(),
    importance: unit('importance').optional(),
    ...claimTiming,
  }),
  supersede_claim: z.strictObject({ claimId: id('claimId'), content: text('content', 2000), ...claimTiming }),
  archive_claim: z.strictObject({ claimId: id('claimId') }),
  create_link: z.strictObject({
    sourceEntityId: id('sourceEntityId'),
    targetEntityId: id('targetEntityId'),
    type: name('type'),
    strength: unit('strength').optional(),
    reason: text('reason', 500).optional(),
  }),
  update_link: z.strictObject({
    linkId: id('linkId'),
    type: name('type').optional(),
    strength: unit('strength').optional(),
    reason: text('reason', 500).optional(),
  }),
  archive_link: z.strictObject({ linkId: id('linkId') }),
  remember_memory: z.strictObject({
    content: text('content', 8000),
    type: z.enum(['fact', 'preference', 'decision', 'procedural', 'semantic', 'constraint']),
    importance: unit('importance').optional(),
    tags: z.array(name('tag')).max(32).optional(),
  }),
  supersede_memory: z.strictObject({ memoryId: id('memoryId'), content: text('content', 8000) }),
  archive_memory: z.strictObject({ memoryId: id('memoryId'), force: z.boolean().optional() }),
  flag: z.strictObject({
    kind: z.enum(['hygiene', 'review_due', 'contested_claim', 'evidence_requeue', 'surprisal']),
    subjectRef: z.string().min(1).max(600),
    priority: z.number().int().min(0).max(100).optional(),
    details: text('details', 1000),
  }),
  decline_attention: z.strictObject({ attentionId: id('attentionId') }),
} as const;

export type OperationName = keyof typeof PAYLOADS;
export const OPERATION_NAMES = Object.keys(PAYLOADS) as OperationName[];

/** Operations that add or change content: they must cite evidence with exact quotes. */
export const CONTENT_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>([
  'create_entity',
  'rename_entity',
  'create_aspect',
  'rename_aspect',
  'add_claim',
  'set_claim',
  'supersede_claim',
  'create_link',
  'update_link',
  'remember_memory',
  'supersede_memory',
]);
/** Operations that remove or fold: they must cite `attention:<id>` (or a `flag` earlier in the batch) about their target. */
export const HYGIENE_OPERATIONS: ReadonlySet<OperationName> = new Set<OperationName>([
  'archive_entity',
  'merge_entities',
  'archive_aspect',
  'merge_aspects',
  'archive_claim',
  'archive_link',
  'archive_memory',
]);

const envelope = {
  evidence: z.array(citationSchema).max(10, 'at most 10 citations per operation').optional(),
  /** Free-form origin notes the model wants recorded (bounded). */
  provenance: z.record(z.string(), z.union([z.string().max(500), z.number(), z.boolean()])).optional(),
  confidence: unit('confidence').optional(),
  /** `review_required` routes the operation to review instead of applying it. */
  risk: z.enum(['normal', 'review_required']).optional(),
  reason: text('reason', 1000).optional(),
};

const variants = OPERATION_NAMES.map((op) =>
  z.strictObject({ operation: z.literal(op), payload: PAYLOADS[op], ...envelope }),
);

/** One operation, as the seam accepts it. */
export const operationSchema = z.discriminatedUnion(
  'operation',
  variants as unknown as [(typeof variants)[number], ...(typeof variants)[number][]],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `operation must be one of: ${OPERATION_NAMES.join(', ')}` : undefined,
  },
);

type Envelope = z.output<ReturnType<typeof z.strictObject<typeof envelope>>>;

/** One validated operation: a TypeScript union discriminated on `operation`. */
export type DreamingOperation = {
  [K in OperationName]: { readonly operation: K; readonly payload: z.output<(typeof PAYLOADS)[K]> } & Envelope;
}[OperationName];

/** The most operations one request may carry. */
export const MAX_OPERATIONS_PER_REQUEST = 100;

export type ParsedOperations =
  | {
      readonly ok: true;
      readonly valid: ReadonlyArray<{ readonly index: number; readonly operation: DreamingOperation }>;
      readonly rejected: ReadonlyArray<{ readonly index: number; readonly reason: string }>;
    }
  | { readonly ok: false; readonly reason: string };

/**
 * Parses a batch from model output: the batch itself must be an array of at most 100; each element
 * is validated on its own, and an invalid one comes back in `rejected` with a reason naming the
 * field (the others are unaffected).
 */
export function parseOperations(input: unknown): ParsedOperations {
  if (!Array.isArray(input)) return { ok: false, reason: 'operations must be an array' };
  if (input.length > MAX_OPERATIONS_PER_REQUEST)
    return { ok: false, reason: `at most ${MAX_OPERATIONS_PER_REQUEST} operations per request; split the batch` };
  const valid: Array<{ index: number; operation: DreamingOperation }> = [];
  const rejected: Array<{ index: number; reason: string }> = [];
  input.forEach((raw: unknown, index) => {
    const parsed = operationSchema.safeParse(raw);
    if (parsed.success) valid.push({ index, operation: parsed.data as DreamingOperation });
    else
      rejected.push({
        index,
        reason: parsed.error.issues
          .map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`)
          .join('; '),
      });
  });
  return { ok: true, valid, rejected };
}

/** The JSON Schema of one operation, for the agent's apply tool (generated from the zod schema). */
export function operationJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(operationSchema, { unrepresentable: 'any' }) as Record<string, unknown>;
}
