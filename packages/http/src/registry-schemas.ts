import { ACTOR_TYPES } from '@memory/store';
import { z } from 'zod';
import { queryBool, queryInt } from './schemas.js';

// The entity registry over HTTP: transport schemas of `/api/registry` (shapes only; `engine.registry`
// applies its own rules) and the response schemas `/openapi.json` publishes for them.

const OBJECT_KINDS = ['memory', 'note', 'document', 'transcript', 'host'] as const;
const objectKind = z.enum(OBJECT_KINDS);
const actorType = z.enum(ACTOR_TYPES);

/** What a category holds: an engine object by id (a transcript by its session key), or a host object. */
const categoryObject = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.enum(['memory', 'note', 'document', 'transcript']), id: z.string() }),
  z.strictObject({ kind: z.literal('host'), type: z.string(), refId: z.string() }),
]);
const audit = {
  /** Who makes the change. @default the agent */
  // exactOptional: the engine's `RegistryAudit` types `actor.type` without `| undefined`.
  actor: z.strictObject({ id: z.string(), type: actorType.exactOptional() }).optional(),
  reason: z.string().optional().meta({ description: 'Why, for the category history' }),
};

export const listCategoriesQuery = z.strictObject({ limit: queryInt(1, 1000).optional() });

export const createCategoryBody = z.strictObject({
  name: z.string().meta({ description: '1-60 characters, unique per agent compared normalized' }),
  description: z.string().optional(),
  aliases: z.array(z.string()).optional(),
  ...audit,
});

export const getCategoryQuery = z.strictObject({
  kind: objectKind.optional(),
  limit: queryInt(1, 1000).optional(),
});

export const updateCategoryBody = z.strictObject({
  name: z.string().optional(),
  description: z.string().nullable().optional().meta({ description: 'null clears it' }),
  aliases: z.array(z.string()).optional().meta({ description: 'Replaces the aliases' }),
  ...audit,
});

export const linkBody = z.strictObject({ object: categoryObject, ...audit });

export const categoriesOfBody = z.strictObject({ object: categoryObject });

export const deletePreviewQuery = z.strictObject({ force: queryBool.optional() });

export const deleteCategoryBody = z.strictObject({
  force: z.boolean().optional().meta({ description: 'Forget pinned memories linked only here too' }),
  ...audit,
});

export const mergeCategoryBody = z.strictObject({
  intoId: z.string().meta({ description: 'The surviving category' }),
  ...audit,
});

const category = z.object({
  id: z.string(),
  agentId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  aliases: z.array(z.string()),
  createdBy: actorType,
  createdAt: z.number(),
  updatedAt: z.number(),
});
const categorySummary = category.extend({ objectCount: z.number() });
const objectOut = z.object({
  kind: objectKind,
  id: z.string().optional(),
  type: z.string().optional(),
  refId: z.string().optional(),
});
const linkedObject = objectOut.extend({
  state: z.enum(['live', 'forgotten', 'archived', 'deleted', 'missing', 'host']),
  preview: z.string().nullable(),
  linkedAt: z.number(),
  linkedBy: actorType,
});

export const categoryResponse = category;
export const categoryListResponse = z.object({ categories: z.array(categorySummary) });
export const categoryDetailResponse = categorySummary.extend({
  counts: z.record(objectKind, z.number()),
  objects: z.array(linkedObject),
});
export const categoryObjectsResponse = z.object({ objects: z.array(linkedObject) });
export const objectCategoriesResponse = z.object({ categories: z.array(category) });
export const linkResponse = z.object({ linked: z.boolean() });
export const unlinkResponse = z.object({ unlinked: z.boolean() });
export const deletePlanResponse = z.object({
  category: categorySummary,
  remove: z.array(objectOut),
  unlink: z.array(objectOut),
  keep: z.array(z.object({ object: objectOut, reason: z.enum(['pinned', 'host-owned', 'already-gone']) })),
});
export const mergeResponse = z.object({ category, moved: z.number(), alreadyLinked: z.number() });
export const categoryHistoryResponse = z.object({
  history: z.array(
    z.object({
      categoryId: z.string(),
      action: z.string(),
      actor: z.object({ id: z.string().nullable(), type: actorType }),
      reason: z.string().nullable(),
      before: z.unknown(),
      after: z.unknown(),
      at: z.number(),
    }),
  ),
});
