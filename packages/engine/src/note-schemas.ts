import {
  agentIdSchema,
  contentSchema,
  idSchema,
  labelSchema,
  linkedEntitiesSchema,
  type MemoryConfig,
  tagsSchema,
} from '@memory/core';
import { ACTOR_TYPES, NOTE_STATUSES } from '@memory/store';
import { z } from 'zod';

/** Input schemas of `engine.notes`, built once per engine from its (frozen) configuration. */
export function createNoteSchemas(config: MemoryConfig) {
  const limits = config.limits;
  const title = labelSchema(512, 'title');
  const content = contentSchema(limits.maxContentBytes);
  const tags = tagsSchema(limits);
  const linkedEntities = linkedEntitiesSchema(limits);
  const entity = z.strictObject({
    type: labelSchema(64, 'entity.type'),
    refId: labelSchema(256, 'entity.refId'),
  });
  const audit = {
    /** Who makes the change: an id (an agent's), or `{ id, type }`. @default the agentId, type `agent` */
    actor: z
      .union([
        labelSchema(256, 'actor'),
        z.strictObject({ id: labelSchema(256, 'actor.id'), type: z.enum(ACTOR_TYPES) }),
      ])
      .optional(),
    reason: labelSchema(4096, 'reason').optional(),
  };
  const ref = { agentId: agentIdSchema, id: idSchema };
  const status = z.enum(NOTE_STATUSES, { error: `status must be one of: ${NOTE_STATUSES.join(', ')}` });
  return {
    create: z.strictObject({
      agentId: agentIdSchema,
      title,
      content,
      tags: tags.optional(),
      linkedEntities: linkedEntities.optional(),
      ...audit,
    }),
    update: z
      .strictObject({
        ...ref,
        title: title.optional(),
        content: content.optional(),
        tags: tags.optional(),
        linkedEntities: linkedEntities.optional(),
        ...audit,
      })
      .refine(
        (u) =>
          u.title !== undefined || u.content !== undefined || u.tags !== undefined || u.linkedEntities !== undefined,
        'update needs at least one of title, content, tags, linkedEntities',
      ),
    transition: z.strictObject({ ...ref, ...audit }),
    ref: z.strictObject(ref),
    list: z.strictObject({
      agentId: agentIdSchema,
      status: status.optional(),
      entity: entity.optional(),
      /** Every tag listed must be on the note. */
      tags: z.array(labelSchema(limits.maxTagLength, 'tag')).max(limits.maxTags).optional(),
      cursor: z.string().min(1).max(200).optional(),
      /** @default 50, at most 500 */
      limit: z.number().int().min(1).max(500).optional(),
    }),
    search: z.strictObject({
      agentId: agentIdSchema,
      query: z
        .string({ error: 'query must be a string' })
        .min(1, 'query must not be empty')
        .max(limits.maxQueryChars, `query must be at most ${limits.maxQueryChars} characters`)
        .optional(),
      entity: entity.optional(),
      status: status.optional(),
      /** @default 10, at most 100 */
      limit: z.number().int().min(1).max(100).optional(),
    }),
  };
}

export type NoteSchemas = ReturnType<typeof createNoteSchemas>;
type Schemas = NoteSchemas;
export type CreateNoteInput = z.input<Schemas['create']>;
export type UpdateNoteInput = z.input<Schemas['update']>;
export type NoteTransitionInput = z.input<Schemas['transition']>;
export type NoteRef = z.input<Schemas['ref']>;
export type ListNotesInput = z.input<Schemas['list']>;
export type SearchNotesInput = z.input<Schemas['search']>;
