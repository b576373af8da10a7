import { agentIdSchema, contentSchema, idSchema, labelSchema, MemoryError } from '@memory/core';
import {
  ACTOR_TYPES,
  type ActorType,
  listRegistryCategoriesProgram,
  type Program,
  type RegistryCategoryRow,
  type RegistryEventRow,
} from '@memory/store';
import { z } from 'zod';
import { CATEGORY_NAME_MAX, normalizeCategoryName } from './registry-names.js';

/** A category of the entity registry. Times are epoch milliseconds. */
export interface Category {
  readonly id: string;
  readonly agentId: string;
  readonly name: string;
  readonly description: string | null;
  /** Other names it answers to (a merged category's name becomes one). */
  readonly aliases: readonly string[];
  readonly createdBy: ActorType;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** A category with how many objects it holds. */
export interface CategorySummary extends Category {
  readonly objectCount: number;
}

/** One entry of a category's audit trail. */
export interface CategoryEvent {
  readonly categoryId: string;
  readonly action: string;
  readonly actor: { readonly id: string | null; readonly type: ActorType };
  readonly reason: string | null;
  readonly before: unknown;
  readonly after: unknown;
  readonly at: number;
}

/** The most categories one agent may have: the registry is for broad areas, and prompts list them all. */
export const MAX_CATEGORIES_PER_AGENT = 1000;

/** Category names and aliases: 1–60 visible characters (the model's proposals pass a stricter rule). */
export const categoryNameSchema = labelSchema(CATEGORY_NAME_MAX, 'name').refine(
  (s) => normalizeCategoryName(s).length > 0,
  'name must contain a letter or digit',
);
/** A category's description: well-formed text, at most 2000 bytes. */
export const descriptionSchema = contentSchema(2000, 'description');
/** A category's other names: at most 20. */
export const aliasesSchema = z.array(categoryNameSchema).max(20, 'at most 20 aliases');

/** Who makes a registry change. @default { id: agentId, type: 'agent' } */
export const auditSchema = {
  actor: z.strictObject({ id: labelSchema(256, 'actor.id'), type: z.enum(ACTOR_TYPES).default('agent') }).optional(),
  reason: labelSchema(1000, 'reason').optional(),
};

/** A category in an agent's scope. */
export const categoryRefSchema = z.strictObject({ agentId: agentIdSchema, id: idSchema });

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The aliases a row keeps (a damaged column reads as none). */
export function aliasesOf(row: RegistryCategoryRow): string[] {
  try {
    const value: unknown = JSON.parse(row.aliases_json);
    return isStringArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** A category row as the public API shows it. */
export function toCategory(row: RegistryCategoryRow): Category {
  return {
    id: row.id,
    agentId: row.agent_id,
    name: row.name,
    description: row.description,
    aliases: aliasesOf(row),
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const parseJson = (text: string | null): unknown => {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
};

/** An audit row as the public API shows it (a damaged JSON column reads as null). */
export function toCategoryEvent(row: RegistryEventRow): CategoryEvent {
  return {
    categoryId: row.category_id,
    action: row.action,
    actor: { id: row.actor_id, type: row.actor_type },
    reason: row.reason,
    before: parseJson(row.before_json),
    after: parseJson(row.after_json),
    at: row.created_at,
  };
}

/** The same `NOT_FOUND` for a missing category and another agent's. */
export function categoryNotFound(id: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no category ${id} in this scope`, { details: { id } });
}

/**
 * The category (other than `exceptId`) whose name or an alias normalizes to `normalized`. Scans the
 * agent's categories (at most {@link MAX_CATEGORIES_PER_AGENT}): aliases are a JSON column.
 */
export function* categoryNamed(
  agentId: string,
  normalized: string,
  exceptId?: string,
): Program<RegistryCategoryRow | undefined> {
  return (yield* listRegistryCategoriesProgram(agentId, MAX_CATEGORIES_PER_AGENT)).find(
    (row) =>
      row.id !== exceptId &&
      (row.normalized_name === normalized || aliasesOf(row).some((a) => normalizeCategoryName(a) === normalized)),
  );
}

/** `CONFLICT` when a name or alias is already another category's name or alias. */
export function* assertNamesFree(agentId: string, names: readonly string[], exceptId?: string): Program<void> {
  const seen = new Set<string>();
  for (const name of names) {
    const normalized = normalizeCategoryName(name);
    const taken = yield* categoryNamed(agentId, normalized, exceptId);
    if (taken || seen.has(normalized))
      throw new MemoryError('CONFLICT', `a category named ${JSON.stringify(name)} already exists`, {
        details: { name, ...(taken ? { id: taken.id } : {}) },
      });
    seen.add(normalized);
  }
}
