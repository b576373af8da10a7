import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, type Program, perDialect, portable, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ActorType } from '../schema/memories.js';
import type { RegistryCategoryRow, RegistryLinkRow, RegistryObjectKind } from '../schema/registry.js';

/** An object as the link table keys it: `hostType` is '' for the engine's own kinds. */
export interface RegistryObjectKey {
  readonly kind: RegistryObjectKind;
  readonly hostType: string;
  readonly ref: string;
}

/** A new link: which object, in which category, by whom. */
export interface RegistryLinkInput {
  agentId: string;
  categoryId: string;
  object: RegistryObjectKey;
  createdBy: ActorType;
  now: number;
}

/** Links an object to a category. Returns false when the link already existed. */
export function insertRegistryLink(sql: SqlExecutor, link: RegistryLinkInput): boolean {
  return runSqliteProgram(sql, insertRegistryLinkProgram(link));
}

/** {@link insertRegistryLink} as a program (both dialects). */
export function* insertRegistryLinkProgram(link: RegistryLinkInput): Program<boolean> {
  const { changes } = yield* run(
    queryBuilder
      .insertInto('registry_category_links')
      .values({
        category_id: link.categoryId,
        agent_id: link.agentId,
        object_kind: link.object.kind,
        host_type: link.object.hostType,
        object_ref: link.object.ref,
        created_by: link.createdBy,
        created_at: link.now,
      })
      .onConflict((oc) => oc.doNothing()),
  );
  return changes > 0;
}

/** Removes one link. Returns false when there was none. */
export function deleteRegistryLink(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
  object: RegistryObjectKey,
): boolean {
  return runSqliteProgram(sql, deleteRegistryLinkProgram(agentId, categoryId, object));
}

/** {@link deleteRegistryLink} as a program (both dialects). */
export function* deleteRegistryLinkProgram(
  agentId: string,
  categoryId: string,
  object: RegistryObjectKey,
): Program<boolean> {
  const { changes } = yield* run(
    queryBuilder
      .deleteFrom('registry_category_links')
      .where('agent_id', '=', agentId)
      .where('category_id', '=', categoryId)
      .where('object_kind', '=', object.kind)
      .where('host_type', '=', object.hostType)
      .where('object_ref', '=', object.ref),
  );
  return changes > 0;
}

/** A category's links, oldest first; `kind` narrows them. Keyset-paged by (created_at, kind, type, ref). */
export function listCategoryLinks(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
  options: { kind?: RegistryObjectKind | undefined; limit: number },
): RegistryLinkRow[] {
  return runSqliteProgram(sql, listCategoryLinksProgram(agentId, categoryId, options));
}

/** {@link listCategoryLinks} as a program (both dialects). */
export function* listCategoryLinksProgram(
  agentId: string,
  categoryId: string,
  options: { kind?: RegistryObjectKind | undefined; limit: number },
): Program<RegistryLinkRow[]> {
  let query = queryBuilder
    .selectFrom('registry_category_links')
    .selectAll()
    .where('agent_id', '=', agentId)
    .where('category_id', '=', categoryId);
  if (options.kind) query = query.where('object_kind', '=', options.kind);
  return yield* all<RegistryLinkRow>(
    query.orderBy('created_at').orderBy('object_kind').orderBy('host_type').orderBy('object_ref').limit(options.limit),
  );
}

/** How many objects of each kind a category holds. */
export function countCategoryLinksByKind(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
): Array<{ object_kind: RegistryObjectKind; n: number }> {
  return runSqliteProgram(sql, countCategoryLinksByKindProgram(agentId, categoryId));
}

/** {@link countCategoryLinksByKind} as a program (both dialects). */
export function* countCategoryLinksByKindProgram(
  agentId: string,
  categoryId: string,
): Program<Array<{ object_kind: RegistryObjectKind; n: number }>> {
  return yield* all<{ object_kind: RegistryObjectKind; n: number }>(
    queryBuilder
      .selectFrom('registry_category_links')
      .select(['object_kind', (eb) => eb.fn.countAll<number>().as('n')])
      .where('agent_id', '=', agentId)
      .where('category_id', '=', categoryId)
      .groupBy('object_kind'),
  );
}

/** The categories one object is linked to, by name (the object index: no scan of the links). */
export function listObjectCategories(
  sql: SqlExecutor,
  agentId: string,
  object: RegistryObjectKey,
): RegistryCategoryRow[] {
  return runSqliteProgram(sql, listObjectCategoriesProgram(agentId, object));
}

/** {@link listObjectCategories} as a program (both dialects). */
export function* listObjectCategoriesProgram(
  agentId: string,
  object: RegistryObjectKey,
): Program<RegistryCategoryRow[]> {
  return yield* all<RegistryCategoryRow>(
    queryBuilder
      .selectFrom('registry_category_links as l')
      .innerJoin('registry_categories as c', 'c.id', 'l.category_id')
      .selectAll('c')
      .where('l.agent_id', '=', agentId)
      .where('l.object_kind', '=', object.kind)
      .where('l.host_type', '=', object.hostType)
      .where('l.object_ref', '=', object.ref)
      .orderBy('c.normalized_name'),
  );
}

// A link of the category whose object has no link to any other category of the same agent.
// Exported for the query-plan test: both sides must be index searches. Valid on both dialects.
export const EXCLUSIVE_OBJECTS_SQL = `SELECT l.object_kind, l.host_type, l.object_ref FROM registry_category_links l
  WHERE l.agent_id = ? AND l.category_id = ?
    AND NOT EXISTS (
      SELECT 1 FROM registry_category_links o
      WHERE o.agent_id = l.agent_id AND o.object_kind = l.object_kind AND o.host_type = l.host_type
        AND o.object_ref = l.object_ref AND o.category_id <> l.category_id)
  ORDER BY l.object_kind, l.host_type, l.object_ref`;

/**
 * Splits a category's objects into those linked only to it (a cascade delete removes them) and
 * those shared with another category (a cascade delete only unlinks them).
 */
export function partitionCategoryObjects(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
): { exclusive: RegistryObjectKey[]; shared: RegistryObjectKey[] } {
  return runSqliteProgram(sql, partitionCategoryObjectsProgram(agentId, categoryId));
}

/** {@link partitionCategoryObjects} as a program (both dialects). */
export function* partitionCategoryObjectsProgram(
  agentId: string,
  categoryId: string,
): Program<{ exclusive: RegistryObjectKey[]; shared: RegistryObjectKey[] }> {
  const exclusive = (yield* all<{ object_kind: RegistryObjectKind; host_type: string; object_ref: string }>(
    portable(EXCLUSIVE_OBJECTS_SQL, agentId, categoryId),
  )).map((r) => ({ kind: r.object_kind, hostType: r.host_type, ref: r.object_ref }));
  const mine = new Set(exclusive.map((o) => `${o.kind}\u0000${o.hostType}\u0000${o.ref}`));
  const shared = (yield* listCategoryLinksProgram(agentId, categoryId, { limit: Number.MAX_SAFE_INTEGER }))
    .map((r) => ({ kind: r.object_kind, hostType: r.host_type, ref: r.object_ref }))
    .filter((o) => !mine.has(`${o.kind}\u0000${o.hostType}\u0000${o.ref}`));
  return { exclusive, shared };
}

const MOVE_LINKS = `INSERT OR IGNORE INTO registry_category_links
    (category_id, agent_id, object_kind, host_type, object_ref, created_by, created_at)
  SELECT ?, agent_id, object_kind, host_type, object_ref, created_by, created_at
  FROM registry_category_links WHERE agent_id = ? AND category_id = ?`;
const MOVE_LINKS_PG = `INSERT INTO registry_category_links
    (category_id, agent_id, object_kind, host_type, object_ref, created_by, created_at)
  SELECT $1, agent_id, object_kind, host_type, object_ref, created_by, created_at
  FROM registry_category_links WHERE agent_id = $2 AND category_id = $3
  ON CONFLICT DO NOTHING`;

/**
 * Moves every link of `fromId` to `toId` (an object already in `toId` keeps that one link).
 * Returns how many links moved and how many were already there.
 */
export function moveCategoryLinks(
  sql: SqlExecutor,
  agentId: string,
  fromId: string,
  toId: string,
): { moved: number; alreadyLinked: number } {
  return runSqliteProgram(sql, moveCategoryLinksProgram(agentId, fromId, toId));
}

/** {@link moveCategoryLinks} as a program (both dialects). */
export function* moveCategoryLinksProgram(
  agentId: string,
  fromId: string,
  toId: string,
): Program<{ moved: number; alreadyLinked: number }> {
  const parameters = [toId, agentId, fromId];
  const moved = (yield* run(perDialect({ sql: MOVE_LINKS, parameters }, { sql: MOVE_LINKS_PG, parameters }))).changes;
  const total = (yield* run(
    queryBuilder
      .deleteFrom('registry_category_links')
      .where('agent_id', '=', agentId)
      .where('category_id', '=', fromId),
  )).changes;
  return { moved, alreadyLinked: total - moved };
}
