import { queryBuilder, type SqlExecutor } from '../internal/sql.js';
import { all, get, type Program, run } from '../program/program.js';
import { runSqliteProgram } from '../program/run-sqlite.js';
import type { ActorType } from '../schema/memories.js';
import type { RegistryCategoryRow, RegistryEventRow } from '../schema/registry.js';

/** A category with the number of objects linked to it. */
export type RegistryCategoryWithCount = RegistryCategoryRow & { object_count: number };

/** Stores a new category; the caller checked the name is free (the unique index is the backstop). */
export function insertRegistryCategory(sql: SqlExecutor, row: RegistryCategoryRow): void {
  runSqliteProgram(sql, insertRegistryCategoryProgram(row));
}

/** {@link insertRegistryCategory} as a program (both dialects). */
export function* insertRegistryCategoryProgram(row: RegistryCategoryRow): Program<void> {
  yield* run(queryBuilder.insertInto('registry_categories').values(row));
}

/** A category of `agentId` by id; another agent's is undefined, exactly like a missing one. */
export function findRegistryCategory(sql: SqlExecutor, agentId: string, id: string): RegistryCategoryRow | undefined {
  return runSqliteProgram(sql, findRegistryCategoryProgram(agentId, id));
}

/** {@link findRegistryCategory} as a program (both dialects). */
export function* findRegistryCategoryProgram(agentId: string, id: string): Program<RegistryCategoryRow | undefined> {
  return yield* get<RegistryCategoryRow>(
    queryBuilder.selectFrom('registry_categories').selectAll().where('agent_id', '=', agentId).where('id', '=', id),
  );
}

/**
 * Which scope holds the category with this id, if any (an import keeps ids, and an id taken in
 * another scope must be refused without showing that scope's row).
 */
export function* findRegistryCategoryOwnerProgram(id: string): Program<string | undefined> {
  return (yield* get<{ agent_id: string }>(
    queryBuilder.selectFrom('registry_categories').select('agent_id').where('id', '=', id),
  ))?.agent_id;
}

/** A category of `agentId` by its normalized name (aliases are not indexed: the caller checks them). */
export function findRegistryCategoryByName(
  sql: SqlExecutor,
  agentId: string,
  normalizedName: string,
): RegistryCategoryRow | undefined {
  return runSqliteProgram(sql, findRegistryCategoryByNameProgram(agentId, normalizedName));
}

/** {@link findRegistryCategoryByName} as a program (both dialects). */
export function* findRegistryCategoryByNameProgram(
  agentId: string,
  normalizedName: string,
): Program<RegistryCategoryRow | undefined> {
  return yield* get<RegistryCategoryRow>(
    queryBuilder
      .selectFrom('registry_categories')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('normalized_name', '=', normalizedName),
  );
}

/** The agent's categories by name, each with its object count (one grouped index scan of the links). */
export function listRegistryCategories(sql: SqlExecutor, agentId: string, limit: number): RegistryCategoryWithCount[] {
  return runSqliteProgram(sql, listRegistryCategoriesProgram(agentId, limit));
}

/** {@link listRegistryCategories} as a program (both dialects). */
export function* listRegistryCategoriesProgram(agentId: string, limit: number): Program<RegistryCategoryWithCount[]> {
  return yield* all<RegistryCategoryWithCount>(
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
      .limit(limit),
  );
}

/** Counts the agent's categories (the per-agent cap). */
export function countRegistryCategories(sql: SqlExecutor, agentId: string): number {
  return runSqliteProgram(sql, countRegistryCategoriesProgram(agentId));
}

/** {@link countRegistryCategories} as a program (both dialects). */
export function* countRegistryCategoriesProgram(agentId: string): Program<number> {
  const row = yield* get<{ n: number }>(
    queryBuilder
      .selectFrom('registry_categories')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('agent_id', '=', agentId),
  );
  return row?.n ?? 0;
}

/** The changeable fields of a category. */
export type RegistryCategoryPatch = Partial<
  Pick<RegistryCategoryRow, 'name' | 'normalized_name' | 'description' | 'aliases_json'>
> & {
  updated_at: number;
};

/** Changes a category's name, description or aliases. Returns false when it is not in the scope. */
export function updateRegistryCategory(
  sql: SqlExecutor,
  agentId: string,
  id: string,
  patch: RegistryCategoryPatch,
): boolean {
  return runSqliteProgram(sql, updateRegistryCategoryProgram(agentId, id, patch));
}

/** {@link updateRegistryCategory} as a program (both dialects). */
export function* updateRegistryCategoryProgram(
  agentId: string,
  id: string,
  patch: RegistryCategoryPatch,
): Program<boolean> {
  const { changes } = yield* run(
    queryBuilder.updateTable('registry_categories').set(patch).where('agent_id', '=', agentId).where('id', '=', id),
  );
  return changes > 0;
}

/** Removes a category (its links go by the foreign key's cascade). Returns false when it is not in the scope. */
export function deleteRegistryCategory(sql: SqlExecutor, agentId: string, id: string): boolean {
  return runSqliteProgram(sql, deleteRegistryCategoryProgram(agentId, id));
}

/** {@link deleteRegistryCategory} as a program (both dialects). */
export function* deleteRegistryCategoryProgram(agentId: string, id: string): Program<boolean> {
  const { changes } = yield* run(
    queryBuilder.deleteFrom('registry_categories').where('agent_id', '=', agentId).where('id', '=', id),
  );
  return changes > 0;
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
  runSqliteProgram(sql, insertRegistryEventProgram(event));
}

/** {@link insertRegistryEvent} as a program (both dialects). */
export function* insertRegistryEventProgram(event: RegistryEventInput): Program<void> {
  yield* insertRegistryEventRowProgram({
    agent_id: event.agentId,
    category_id: event.categoryId,
    action: event.action,
    actor_id: event.actor.id,
    actor_type: event.actor.type,
    reason: event.reason,
    before_json: event.before === undefined ? null : JSON.stringify(event.before),
    after_json: event.after === undefined ? null : JSON.stringify(event.after),
    created_at: event.now,
  });
}

/** An audit row as stored (an export's rows are imported as they are, JSON already serialized). */
export function* insertRegistryEventRowProgram(row: Omit<RegistryEventRow, 'seq'>): Program<void> {
  yield* run(queryBuilder.insertInto('registry_events').values(row));
}

/** A category's audit trail, oldest first (kept after the category is deleted or merged away). */
export function listRegistryEvents(
  sql: SqlExecutor,
  agentId: string,
  categoryId: string,
  limit: number,
): RegistryEventRow[] {
  return runSqliteProgram(sql, listRegistryEventsProgram(agentId, categoryId, limit));
}

/** {@link listRegistryEvents} as a program (both dialects). */
export function* listRegistryEventsProgram(
  agentId: string,
  categoryId: string,
  limit: number,
): Program<RegistryEventRow[]> {
  return yield* all<RegistryEventRow>(
    queryBuilder
      .selectFrom('registry_events')
      .selectAll()
      .where('agent_id', '=', agentId)
      .where('category_id', '=', categoryId)
      .orderBy('seq')
      .limit(limit),
  );
}
