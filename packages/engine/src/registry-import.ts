import { idSchema, MemoryError, parseInput } from '@memory/core';
import type { CategoryRecord, WrittenExport } from '@memory/ingest';
import {
  ACTOR_TYPES,
  countRegistryCategoriesProgram,
  findRegistryCategoryOwnerProgram,
  insertRegistryCategoryProgram,
  insertRegistryEventRowProgram,
  insertRegistryLinkProgram,
  listObjectCategoriesProgram,
  type Program,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { normalizeCategoryName } from './registry-names.js';
import { type CategoryObject, categoryObjectSchema, describeObject, objectKey } from './registry-objects.js';
import {
  aliasesSchema,
  categoryNamed,
  categoryNameSchema,
  descriptionSchema,
  MAX_CATEGORIES_PER_AGENT,
} from './registry-views.js';

// An export's category record is untrusted input: it is read by the registry's own rules, the
// stored comparison form of its name is recomputed (never taken from the file), and its links
// are rebuilt as the objects `registry.link` accepts.

const time = z.number().int().min(0);
const categoryRowSchema = z.strictObject({
  id: idSchema,
  name: categoryNameSchema,
  normalized_name: z.string().optional(),
  description: descriptionSchema.nullable(),
  aliases_json: z.string(),
  created_by: z.enum(ACTOR_TYPES),
  created_at: time,
  updated_at: time,
});
const linkRowSchema = z.strictObject({
  object_kind: z.enum(['memory', 'note', 'document', 'transcript', 'host']),
  host_type: z.string(),
  object_ref: z.string(),
  created_by: z.enum(ACTOR_TYPES),
  created_at: time,
});
const eventRowSchema = z.strictObject({
  action: z.enum(['created', 'updated', 'linked', 'unlinked', 'merged', 'merged_into', 'deleted']),
  actor_id: z.string().max(256).nullable(),
  actor_type: z.enum(ACTOR_TYPES),
  reason: z.string().max(1000).nullable(),
  before_json: z.string().nullable(),
  after_json: z.string().nullable(),
  created_at: time,
});

function aliasesOfRecord(text: string, name: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new MemoryError('INVALID_INPUT', 'category aliases_json is not JSON');
  }
  // Repeats of the name or of an earlier alias are dropped, as `registry.create` would refuse them.
  const seen = new Set([normalizeCategoryName(name)]);
  return parseInput(aliasesSchema, value, 'category aliases').filter((alias) => {
    const normalized = normalizeCategoryName(alias);
    if (seen.has(normalized)) return false;
    seen.add(normalized);
    return true;
  });
}

/** A link row as the object `registry.link` takes: engine kinds carry no host type, host ones need one. */
function objectOfLink(row: z.output<typeof linkRowSchema>): CategoryObject {
  if (row.object_kind !== 'host' && row.host_type !== '')
    throw new MemoryError('INVALID_INPUT', `a ${row.object_kind} link has no host_type`);
  const object =
    row.object_kind === 'host'
      ? { kind: 'host', type: row.host_type, refId: row.object_ref }
      : { kind: row.object_kind, id: row.object_ref };
  return parseInput(categoryObjectSchema, object, 'category link');
}

/**
 * Writes an export's `category` record into the scope, as a program inside the import's write on
 * either dialect (the import's savepoint is open). The
 * category keeps its id and its audit events; one whose name or an alias is already a category of
 * the scope takes the record's links instead (names are unique per scope), and gains no events. A
 * link is kept when its object is in this scope (any state: a forgotten memory keeps its
 * categories) and has room under `registry.maxPerObject`; host objects are the host's to vouch
 * for. A new category beyond the per-agent cap is rejected `limit_reached`.
 */
export function* importCategoryRecordProgram(
  ctx: Pick<EngineContext, 'config'>,
  agentId: string,
  record: CategoryRecord,
): Program<WrittenExport> {
  const { kind: _kind, links, events, ...columns } = record;
  const row = parseInput(categoryRowSchema, columns, 'category');
  const linkObjects = links.map((link) => {
    const linkRow = parseInput(linkRowSchema, link, 'category link');
    return { linkRow, object: objectOfLink(linkRow) };
  });
  const eventRows = events.map((event) => parseInput(eventRowSchema, event, 'category event'));
  const aliases = aliasesOfRecord(row.aliases_json, row.name);

  const ownerId = yield* findRegistryCategoryOwnerProgram(row.id);
  if (ownerId !== undefined && ownerId !== agentId) return { outcome: 'rejected', reason: 'id_conflict' };
  let categoryId = row.id;
  let outcome: 'imported' | 'duplicate' = 'duplicate';
  if (ownerId === undefined) {
    let named: { id: string } | undefined;
    for (const name of [row.name, ...aliases]) {
      named = yield* categoryNamed(agentId, normalizeCategoryName(name));
      if (named) break;
    }
    if (named) categoryId = named.id;
    else {
      if ((yield* countRegistryCategoriesProgram(agentId)) >= MAX_CATEGORIES_PER_AGENT)
        return { outcome: 'rejected', reason: 'limit_reached' };
      yield* insertRegistryCategoryProgram({
        id: row.id,
        agent_id: agentId,
        name: row.name.trim(),
        normalized_name: normalizeCategoryName(row.name),
        description: row.description,
        aliases_json: JSON.stringify(aliases),
        created_by: row.created_by,
        created_at: row.created_at,
        updated_at: row.updated_at,
      });
      for (const event of eventRows)
        yield* insertRegistryEventRowProgram({ ...event, agent_id: agentId, category_id: categoryId });
      outcome = 'imported';
    }
  }
  const max = ctx.config.registry.maxPerObject;
  for (const { linkRow, object } of linkObjects) {
    const key = objectKey(object);
    if ((yield* describeObject(agentId, key)).state === 'missing') continue;
    const current = yield* listObjectCategoriesProgram(agentId, key);
    if (current.some((c) => c.id === categoryId) || current.length >= max) continue;
    yield* insertRegistryLinkProgram({
      agentId,
      categoryId,
      object: key,
      createdBy: linkRow.created_by,
      now: linkRow.created_at,
    });
    outcome = 'imported';
  }
  return { outcome };
}
