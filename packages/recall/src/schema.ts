import { agentIdSchema, labelSchema, type MemoryConfig, timeSchema } from '@memory/core';
import { MEMORY_TYPES } from '@memory/store';
import { z } from 'zod';

/** Recall input schema, built once per engine from its configuration. */
export function createRecallSchema(config: MemoryConfig) {
  const type = z.enum(MEMORY_TYPES, { error: `type must be one of: ${MEMORY_TYPES.join(', ')}` });
  return z
    .strictObject({
      agentId: agentIdSchema,
      query: z
        .string({ error: 'query must be a string' })
        .min(1, 'query must not be empty')
        .max(config.limits.maxQueryChars, `query must be at most ${config.limits.maxQueryChars} characters`),
      /** 1..`config.recall.maxLimit`. @default config.recall.defaultLimit */
      limit: z
        .number()
        .int('limit must be an integer')
        .min(1, 'limit must be at least 1')
        .max(config.recall.maxLimit, `limit must be at most ${config.recall.maxLimit}`)
        .optional(),
      /** One type or a list; a memory matches any of them. */
      type: z.union([type, z.array(type).max(MEMORY_TYPES.length)]).optional(),
      /** A memory must carry every tag listed. */
      tags: z.array(labelSchema(config.limits.maxTagLength, 'tag')).max(config.limits.maxTags).optional(),
      project: labelSchema(256, 'project').optional(),
      who: labelSchema(256, 'who').optional(),
      pinned: z.boolean().optional(),
      /** Only memories with importance ≥ this. */
      importanceMin: z.number().min(0).max(1).optional(),
      /** Only memories created at or after this time. */
      since: timeSchema.optional(),
      /** Only memories created before this time. */
      until: timeSchema.optional(),
      /**
       * Days back to search (by creation time; pinned memories are always included); `null` searches
       * everything. @default config.recall.searchWindowDays (90)
       */
      windowDays: z.number().positive().max(36_500).nullable().optional(),
      /** Search only the last `config.recall.recentOnlyDays` (7) days. */
      recentOnly: z.boolean().optional(),
      /** Host references (a contact, a thread): memories linked to them come back in the `linked` tier. */
      linkedEntities: z
        .array(
          z.strictObject({
            type: labelSchema(64, 'linkedEntities.type'),
            refId: labelSchema(256, 'linkedEntities.refId'),
          }),
        )
        .max(config.limits.maxLinkedEntities)
        .optional(),
      /**
       * What to return: `memories`, and working `notes` (active and resolved) ranked and tiered with
       * them, each result saying its `kind`. @default ['memories']
       */
      include: z
        .array(z.enum(['memories', 'notes'], { error: 'include lists memories and/or notes' }))
        .min(1, 'include must name memories and/or notes')
        .max(2)
        .optional(),
      /** Join bounded transcript excerpts for the sessions behind the results. */
      expand: z.boolean().optional(),
      /** Per-result explanation: channel scores, fusion, dampening, paths. */
      explain: z.boolean().optional(),
      /** Claims valid at this time (traversal). @default now */
      asOf: timeSchema.optional(),
      /**
       * The query time: recall answers as of this moment. The search window ends here and starts
       * `windowDays` before it, memories created after it are left out, and recency counts from it.
       * @default the engine clock's now
       */
      now: timeSchema.optional(),
    })
    .refine((r) => r.since === undefined || r.until === undefined || r.since < r.until, {
      message: 'since must be before until',
      path: ['since'],
    });
}

export type RecallRequest = z.output<ReturnType<typeof createRecallSchema>>;
export type RecallInput = z.input<ReturnType<typeof createRecallSchema>>;
