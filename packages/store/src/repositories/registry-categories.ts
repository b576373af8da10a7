import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import type { ActorType } from '../schema/memories.js';
import type { RegistryCategoryRow, RegistryEventRow } from '../schema/registry.js';

/** A category with the number of objects linked to it. */
export type RegistryCategoryWithCount = RegistryCategoryRow & { object_count: number };

/** Stores a new category; the caller checked the name is free (the unique index is the backstop). */
export function insertRegistryCategory(sql: SqlExecutor, row: RegistryCategoryRow): void {
  sql.run(queryBuilder.insertInto('registry_categories').values(row).compile());
}

/** A category of `agentId` by id; another agent's is undefined, exactly like a missing one. */
export function findRegistryCategory(sql: SqlExecutor, agentId: string, id: string): RegistryCategoryRow | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('registry_categories')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('id', '=', id)
      .compile(),
  );
}

/** A category of `agentId` by its normalized name (aliases are not indexed: the caller checks them). */
export function findRegistryCategoryByName(
  sql: SqlExecutor,
  agentId: string,
  normalizedName: string,
): RegistryCategoryRow | undefined {
  return sql.get(
    queryBuilder
      .selectFrom('registry_categories')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('normalized_name', '=', normalizedName)
      .compile(),
  );
}

/** The agent's categories by name, each with its object count (one grouped index scan of the links). */
export function listRegistryCategories(sql: SqlExecutor, agentId: string, limit: number): RegistryCategoryWithCount[] {
  return sql.all(
    queryBuilder
      .selectFrom('registry_categories as c')
      .selectAll('c')
      .select((eb) =>
        eb
          .selectFrom('registry_category_links as l')
          .whereRef('l.category_id', '=', 'c.id')
          .select((inner) => inner.fn.countAll<number>().as('n'))
          .as('object_count'),
      )
      .where('c.agent_id', '=', agentId)
      .orderBy('c.normalized_name')
      .limit(limit)
      .compile(),
  ) as RegistryCategoryWithCount[];
}

/** Counts the agent's categories (the per-agent cap). */
export function countRegistryCategories(sql: SqlExecutor, agentId: string): number {
  const row = sql.get(
    queryBuilder
      .selectFrom('registry_categories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('agent_id', '=', agentId)
      .compile(),
  );
  return row?.n ?? 0;
}

/** Changes a category's name, description or aliases. Returns false when it is not in the scope. */
export function updateRegistryCategory(
  sql: SqlExecutor,
  agentId: string,
  id: string,
  patch: Partial<Pick<RegistryCategoryRow, 'name' | 'normalized_name' | 'description' | 'aliases_json'>> & {
    updated_at: number;
  },
): boolean {
  return (
    sql.run(
      queryBuilder
        .updateTable('registry_categories')
        .set(patch)
        .where('agent_id', '=', agentId)
        .where('id', '=', id)
        .compile(),
    ).changes > 0
  );
}

/** Removes a category (its links go by the foreign key's cascade). Returns false when it is not in the scope. */
export function deleteRegistryCategory(sql: SqlExecutor, agentId: string, id: string): boolean {
  return (
    sql.run(
      queryBuilder.deleteFrom('registry_categories').where('agent_id', '=', agentId).where('id', '=', id).compile(),
    ).changes > 0
  );
}

/** One audit row of the registry. */
export interface RegistryEventInput {
  readonly agentId: string;
  readonly categoryId: string;
  readonly action: 'created' | 'updated' | 'linked' | 'unlinked' | 'merged' | 'merged_into' | 'deleted';
  readonly actor: { readonly id: string | null; readonly type: ActorType };
  readonly reason: string | null;
  readonly before: unknown;
  readonly after: unknown;
  readonly now: number;
}

/** Appends a row to the registry's audit trail. */
export function insertRegistryEvent(sql: SqlExecutor, event: RegistryEventInput): void {
  sql.run(
    queryBuilder
      .insertInto('registry_events')
      .values({
        agent_id: event.agentId,
        category_id: event.categoryId,
        action: event.action,
        actor_id: event.actor.id,
        actor_type: event.actor.type,
        reason: event.reason,
        before_json: event.before === undefined ? null : JSON.stringify(event.before),
        after_json: event.after === undefined ? null : JSON.stringify(event.after),
        created_at: event.now,
      })
      .compile(),
  );
}

/** A category's audit trail, oldest first (kept after the category is deleted or merged away). */
export function listRegistryEvents(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
  limit: number,
): RegistryEventRow[] {
  return sql.all(
    queryBuilder
      .selectFrom('registry_events')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('category_id', '=', categoryId)
      .orderBy('seq')
      .limit(limit)
      .compile(),
  );
}
