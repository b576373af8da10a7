import {
  agentIdSchema,
  contentSchema,
  idSchema,
  labelSchema,
  linkedEntitiesSchema,
  type MemoryConfig,
  tagsSchema,
  timeSchema,
} from '@memory/core';
import { ACTOR_TYPES, MEMORY_TYPES } from '@memory/store';
import { z } from 'zod';

/** Who made a change, for the audit trail. */
const actorSchema = z.strictObject({
  /** An id of the person, agent or process. */
  id: labelSchema(256, 'actor.id'),
  /** @default 'agent' */
  type: z.enum(ACTOR_TYPES).default('agent'),
});

const auditFields = {
  /** Who is making the change. @default { id: agentId, type: 'agent' } */
  actor: actorSchema.optional(),
  /** The host's session id, recorded in history. */
  sessionId: labelSchema(256, 'sessionId').optional(),
  /** The host's request id, recorded in history. */
  requestId: labelSchema(256, 'requestId').optional(),
};

/** Input schemas, built once per engine from its (frozen) configuration. */
export function createInputSchemas(config: MemoryConfig) {
  const limits = config.limits;
  // The shared content rule (well-formed, a letter, digit or symbol, a byte cap): remember,
  // rememberMany, modify and document chunks all pass through it.
  const content = contentSchema(limits.maxContentBytes);
  const tags = tagsSchema(limits);
  const linkedEntities = linkedEntitiesSchema(limits);
  const importance = z
    .number()
    .min(0, 'importance must be between 0 and 1')
    .max(1, 'importance must be between 0 and 1');

  const remember = z.strictObject({
    agentId: agentIdSchema,
    content,
    /** @default 'fact' */
    type: z.enum(MEMORY_TYPES, { error: `type must be one of: ${MEMORY_TYPES.join(', ')}` }).default('fact'),
    /** 0..1. @default config.remember.defaultImportance */
    importance: importance.optional(),
    /** 0..1: how sure the source is. @default 1 */
    confidence: z.number().min(0).max(1).optional(),
    category: labelSchema(128, 'category').optional(),
    tags: tags.optional(),
    project: labelSchema(256, 'project').optional(),
    who: labelSchema(256, 'who').optional(),
    why: z.string().max(4096).optional(),
    /** Where the memory came from (a message id, a file...). */
    source: z.strictObject({ type: labelSchema(64, 'source.type'), id: labelSchema(512, 'source.id') }).optional(),
    linkedEntities: linkedEntities.optional(),
    pinned: z.boolean().optional(),
    /** When the remembered thing happened or was said, if not now (imports, backfills). @default now */
    createdAt: timeSchema.optional(),
    /** After this time the memory is no longer recalled. */
    expiresAt: timeSchema.optional(),
    /**
     * Conflict detection for this memory (`remember`, and each item of `rememberMany`): `false`
     * always adds it, even when it restates or updates an existing one. @default config.remember.conflict.enabled
     */
    conflict: z.boolean().optional(),
    ...auditFields,
  });

  const scoped = z.strictObject({ agentId: agentIdSchema });

  const modify = z
    .strictObject({
      agentId: agentIdSchema,
      reason: labelSchema(4096, 'reason'),
      content: content.optional(),
      importance: importance.optional(),
      tags: tags.optional(),
      pinned: z.boolean().optional(),
      ...auditFields,
    })
    .refine(
      (m) => m.content !== undefined || m.importance !== undefined || m.tags !== undefined || m.pinned !== undefined,
      'modify needs at least one of content, importance, tags, pinned',
    );

  const forget = z.strictObject({
    agentId: agentIdSchema,
    reason: labelSchema(4096, 'reason'),
    /** Needed to forget a pinned memory. @default false */
    force: z.boolean().optional(),
    ...auditFields,
  });

  const recover = z.strictObject({
    agentId: agentIdSchema,
    reason: labelSchema(4096, 'reason').optional(),
    ...auditFields,
  });

  const get = z.strictObject({ agentId: agentIdSchema, includeDeleted: z.boolean().optional() });

  return { remember, scoped, modify, forget, recover, get, id: idSchema };
}

export type InputSchemas = ReturnType<typeof createInputSchemas>;
export type RememberInput = z.input<InputSchemas['remember']>;
export type ParsedRemember = z.output<InputSchemas['remember']>;
export type ModifyInput = z.input<InputSchemas['modify']>;
export type ForgetInput = z.input<InputSchemas['forget']>;
export type RecoverInput = z.input<InputSchemas['recover']>;
export type GetMemoryOptions = z.input<InputSchemas['get']>;
export type ScopeInput = z.input<InputSchemas['scoped']>;
