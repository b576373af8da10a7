import { agentIdSchema, MemoryError, parseInput } from '@memory/core';
import {
  countCategoryLinksByKindProgram,
  countRegistryCategoriesProgram,
  deleteRegistryLinkProgram,
  findRegistryCategoryProgram,
  insertRegistryCategoryProgram,
  insertRegistryEventProgram,
  insertRegistryLinkProgram,
  listCategoryLinksProgram,
  listObjectCategoriesProgram,
  listRegistryCategoriesProgram,
  listRegistryEventsProgram,
  type Program,
  type RegistryCategoryRow,
  updateRegistryCategoryProgram,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { normalizeCategoryName } from './registry-names.js';
import {
  assertLinkable,
  type CategoryObject,
  type CategoryObjectKind,
  categoryObjectSchema,
  type LinkedCategoryObject,
  objectKey,
  toLinkedObject,
} from './registry-objects.js';
import {
  aliasesSchema,
  assertNamesFree,
  auditSchema,
  type Category,
  type CategoryEvent,
  type CategorySummary,
  categoryNameSchema,
  categoryNotFound,
  categoryRefSchema,
  descriptionSchema,
  MAX_CATEGORIES_PER_AGENT,
  toCategory,
  toCategoryEvent,
} from './registry-views.js';

/** A category with its object counts per kind and a page of its linked objects. */
export interface CategoryDetail extends CategorySummary {
  readonly counts: Readonly<Record<CategoryObjectKind, number>>;
  /** Oldest link first, at most `limit` (default 50). */
  readonly objects: readonly LinkedCategoryObject[];
}

const KINDS = ['memory', 'note', 'document', 'transcript', 'host'] as const;
const limitSchema = (max: number) => z.number().int().min(1).max(max);

const listSchema = z.strictObject({ agentId: agentIdSchema, limit: limitSchema(MAX_CATEGORIES_PER_AGENT).optional() });
const createSchema = z.strictObject({
  agentId: agentIdSchema,
  name: categoryNameSchema,
  description: descriptionSchema.optional(),
  aliases: aliasesSchema.optional(),
  ...auditSchema,
});
const getSchema = categoryRefSchema.extend({ kind: z.enum(KINDS).optional(), limit: limitSchema(1000).optional() });
const updateSchema = categoryRefSchema
  .extend({
    name: categoryNameSchema.optional(),
    description: descriptionSchema.nullable().optional(),
    aliases: aliasesSchema.optional(),
    ...auditSchema,
  })
  .refine((u) => u.name !== undefined || u.description !== undefined || u.aliases !== undefined, {
    message: 'update needs at least one of name, description, aliases',
  });
const linkSchema = categoryRefSchema.extend({ object: categoryObjectSchema, ...auditSchema });
const byObjectSchema = z.strictObject({ agentId: agentIdSchema, object: categoryObjectSchema });

/** What writing to the registry needs: the portable store and the configuration (`registry.maxPerObject`). */
export type RegistryDeps = Pick<EngineContext, 'portable' | 'config'>;

type Audit = { actor?: { id: string; type: 'operator' | 'agent' | 'engine' } | undefined; reason?: string | undefined };
/** The audit fields of a request: the caller's actor, or the agent itself. */
export const actorOf = (agentId: string, audit: Audit) => audit.actor ?? { id: agentId, type: 'agent' as const };

/** The category in scope, or `NOT_FOUND` (another agent's reads exactly like a missing one). */
export function* requireCategory(agentId: string, id: string): Program<RegistryCategoryRow> {
  const row = yield* findRegistryCategoryProgram(agentId, id);
  if (!row) throw categoryNotFound(id);
  return row;
}

/** The agent's categories by name, each with its object count. */
export async function listCategories(ctx: EngineContext, input: unknown): Promise<CategorySummary[]> {
  const { agentId, limit } = parseInput(listSchema, input, 'registry.list');
  const rows = await ctx.portable.db.read(() => listRegistryCategoriesProgram(agentId, limit ?? 100));
  return rows.map((row) => ({ ...toCategory(row), objectCount: row.object_count }));
}

/**
 * Stores a new category and audits it. Within the write transaction, so callers that create a
 * category as part of a larger change (auto-linking) share the name check and the cap.
 */
export function* insertCategory(
  ctx: RegistryDeps,
  input: { agentId: string; name: string; description: string | null; aliases: readonly string[] },
  audit: { actor: { id: string; type: 'operator' | 'agent' | 'engine' }; reason: string | null },
): Program<Category> {
  const { agentId, name } = input;
  yield* assertNamesFree(agentId, [name, ...input.aliases]);
  if ((yield* countRegistryCategoriesProgram(agentId)) >= MAX_CATEGORIES_PER_AGENT)
    throw new MemoryError('CONFLICT', `an agent may have at most ${MAX_CATEGORIES_PER_AGENT} categories`, {
      details: { limit: MAX_CATEGORIES_PER_AGENT },
    });
  const now = ctx.portable.clock.now();
  const row: RegistryCategoryRow = {
    id: ctx.portable.ids.next(),
    agent_id: agentId,
    name: name.trim(),
    normalized_name: normalizeCategoryName(name),
    description: input.description,
    aliases_json: JSON.stringify(input.aliases),
    created_by: audit.actor.type,
    created_at: now,
    updated_at: now,
  };
  yield* insertRegistryCategoryProgram(row);
  const category = toCategory(row);
  yield* insertRegistryEventProgram({
    agentId,
    categoryId: row.id,
    action: 'created',
    actor: audit.actor,
    reason: audit.reason,
    before: null,
    after: category,
    now,
  });
  return category;
}

/** Creates a category; `CONFLICT` when its name or an alias is taken (compared normalized). */
export function createCategory(ctx: EngineContext, input: unknown): Promise<Category> {
  const request = parseInput(createSchema, input, 'registry.create');
  return ctx.portable.db.write(() =>
    insertCategory(
      ctx,
      {
        agentId: request.agentId,
        name: request.name,
        description: request.description ?? null,
        aliases: request.aliases ?? [],
      },
      { actor: actorOf(request.agentId, request), reason: request.reason ?? null },
    ),
  );
}

/** A category with its counts and a page of its objects; `NOT_FOUND` outside the scope. */
export function getCategory(ctx: EngineContext, input: unknown): Promise<CategoryDetail> {
  const { agentId, id, kind, limit } = parseInput(getSchema, input, 'registry.get');
  return ctx.portable.db.read(function* () {
    const row = yield* requireCategory(agentId, id);
    const counts = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<CategoryObjectKind, number>;
    for (const { object_kind, n } of yield* countCategoryLinksByKindProgram(agentId, id)) counts[object_kind] = n;
    const objects: LinkedCategoryObject[] = [];
    for (const link of yield* listCategoryLinksProgram(agentId, id, { kind, limit: limit ?? 50 }))
      objects.push(yield* toLinkedObject(link));
    const objectCount = KINDS.reduce((n, k) => n + counts[k], 0);
    return { ...toCategory(row), objectCount, counts, objects };
  });
}

/** Objects by category: a category's linked objects (optionally of one kind), oldest link first. */
export function categoryObjects(ctx: EngineContext, input: unknown): Promise<LinkedCategoryObject[]> {
  const { agentId, id, kind, limit } = parseInput(getSchema, input, 'registry.objects');
  return ctx.portable.db.read(function* () {
    yield* requireCategory(agentId, id);
    const objects: LinkedCategoryObject[] = [];
    for (const link of yield* listCategoryLinksProgram(agentId, id, { kind, limit: limit ?? 100 }))
      objects.push(yield* toLinkedObject(link));
    return objects;
  });
}

/** Categories by object: the categories one object is linked to, by name (an index lookup). */
export async function objectCategories(ctx: EngineContext, input: unknown): Promise<Category[]> {
  const { agentId, object } = parseInput(byObjectSchema, input, 'registry.categoriesOf');
  return (await ctx.portable.db.read(() => listObjectCategoriesProgram(agentId, objectKey(object)))).map(toCategory);
}

/** Renames, redescribes or re-aliases a category; `CONFLICT` when a new name or alias is taken. */
export function updateCategory(ctx: EngineContext, input: unknown): Promise<Category> {
  const request = parseInput(updateSchema, input, 'registry.update');
  const { agentId, id } = request;
  const { clock } = ctx.portable;
  return ctx.portable.db.write(function* () {
    const row = yield* requireCategory(agentId, id);
    const before = toCategory(row);
    const name = request.name ?? row.name;
    const aliases = request.aliases ?? before.aliases;
    yield* assertNamesFree(agentId, [name, ...aliases], id);
    const now = clock.now();
    yield* updateRegistryCategoryProgram(agentId, id, {
      name: name.trim(),
      normalized_name: normalizeCategoryName(name),
      description: request.description === undefined ? row.description : request.description,
      aliases_json: JSON.stringify(aliases),
      updated_at: now,
    });
    const after = toCategory(yield* requireCategory(agentId, id));
    yield* insertRegistryEventProgram({
      agentId,
      categoryId: id,
      action: 'updated',
      actor: actorOf(agentId, request),
      reason: request.reason ?? null,
      before,
      after,
      now,
    });
    return after;
  });
}

/**
 * Links an object to a category within the write transaction, audited. `CONFLICT` when the object
 * is already in `registry.maxPerObject` categories. Returns false when the link already existed.
 */
export function* insertLink(
  ctx: RegistryDeps,
  link: { agentId: string; categoryId: string; object: CategoryObject },
  audit: { actor: { id: string; type: 'operator' | 'agent' | 'engine' }; reason: string | null },
): Program<boolean> {
  const { agentId, categoryId, object } = link;
  const key = objectKey(object);
  const current = yield* listObjectCategoriesProgram(agentId, key);
  if (current.some((c) => c.id === categoryId)) return false;
  const max = ctx.config.registry.maxPerObject;
  if (current.length >= max)
    throw new MemoryError('CONFLICT', `the object is already in ${current.length} categories (most ${max})`, {
      details: { max, categories: current.map((c) => c.id) },
    });
  const now = ctx.portable.clock.now();
  yield* insertRegistryLinkProgram({ agentId, categoryId, object: key, createdBy: audit.actor.type, now });
  yield* insertRegistryEventProgram({
    agentId,
    categoryId,
    action: 'linked',
    ...audit,
    before: null,
    after: object,
    now,
  });
  return true;
}

/** Links an object (which must exist in the scope, unless it is the host's) to a category. */
export function linkObject(ctx: EngineContext, input: unknown): Promise<{ linked: boolean }> {
  const request = parseInput(linkSchema, input, 'registry.link');
  const { agentId, id, object } = request;
  return ctx.portable.db.write(function* () {
    yield* requireCategory(agentId, id);
    yield* assertLinkable(agentId, object);
    const audit = { actor: actorOf(agentId, request), reason: request.reason ?? null };
    return { linked: yield* insertLink(ctx, { agentId, categoryId: id, object }, audit) };
  });
}

/** Unlinks an object from a category (the object itself is untouched). */
export function unlinkObject(ctx: EngineContext, input: unknown): Promise<{ unlinked: boolean }> {
  const request = parseInput(linkSchema, input, 'registry.unlink');
  const { agentId, id, object } = request;
  const { clock } = ctx.portable;
  return ctx.portable.db.write(function* () {
    yield* requireCategory(agentId, id);
    const unlinked = yield* deleteRegistryLinkProgram(agentId, id, objectKey(object));
    if (unlinked)
      yield* insertRegistryEventProgram({
        agentId,
        categoryId: id,
        action: 'unlinked',
        actor: actorOf(agentId, request),
        reason: request.reason ?? null,
        before: object,
        after: null,
        now: clock.now(),
      });
    return { unlinked };
  });
}

/**
 * A category's audit trail, oldest first (at most 1000 entries), also after it was deleted or
 * merged away. `NOT_FOUND` when the scope has no trail for that id.
 */
export async function categoryHistory(ctx: EngineContext, input: unknown): Promise<CategoryEvent[]> {
  const { agentId, id } = parseInput(categoryRefSchema, input, 'registry.history');
  const events = await ctx.portable.db.read(() => listRegistryEventsProgram(agentId, id, 1000));
  if (events.length === 0) throw categoryNotFound(id);
  return events.map(toCategoryEvent);
}
