import type { CategoryDetail } from './registry.js';
import type { CategoryDeletePlan, CategoryMergeResult } from './registry-delete.js';
import type { CategoryObject, CategoryObjectKind, LinkedCategoryObject } from './registry-objects.js';
import type { Category, CategoryEvent, CategorySummary } from './registry-views.js';

/** Who makes a registry change and why, for its audit trail. @default actor { id: agentId, type: 'agent' } */
export interface RegistryAudit {
  readonly actor?: { readonly id: string; readonly type?: 'operator' | 'agent' | 'engine' } | undefined;
  readonly reason?: string | undefined;
}

/** A category in an agent's scope. */
export interface CategoryRef {
  readonly agentId: string;
  readonly id: string;
}

export interface CreateCategoryInput extends RegistryAudit {
  readonly agentId: string;
  /** 1–60 characters; unique per agent compared normalized ("Health & Fitness" = "health and fitness"). */
  readonly name: string;
  readonly description?: string | undefined;
  readonly aliases?: readonly string[] | undefined;
}

export interface UpdateCategoryInput extends CategoryRef, RegistryAudit {
  readonly name?: string | undefined;
  /** `null` clears it. */
  readonly description?: string | null | undefined;
  /** Replaces the aliases. */
  readonly aliases?: readonly string[] | undefined;
}

export interface CategoryObjectsInput extends CategoryRef {
  readonly kind?: CategoryObjectKind | undefined;
  /** @default 50 for `get`, 100 for `objects`; at most 1000 */
  readonly limit?: number | undefined;
}

export interface LinkInput extends CategoryRef, RegistryAudit {
  readonly object: CategoryObject;
}

export interface DeleteCategoryInput extends CategoryRef, RegistryAudit {
  /** Forget pinned memories linked only to this category too (otherwise they are kept, unlinked). */
  readonly force?: boolean | undefined;
}

export interface MergeCategoryInput extends CategoryRef, RegistryAudit {
  /** The surviving category; `id` is merged into it and removed. */
  readonly intoId: string;
}

/**
 * The entity registry: broad categories ("Personal Finance", "Acme renewal") over everything an
 * agent holds — memories, notes, documents, transcripts and host objects. Not the knowledge graph's
 * entities (`engine.graph`, written by Dreaming) and not host-object links (`linkedEntities`).
 * Every call is scoped by `agentId`; another agent's category is `NOT_FOUND`, like a missing one.
 */
export interface EngineRegistry {
  /** The agent's categories by name, with object counts (`limit` default 100, at most 1000). */
  list(input: { readonly agentId: string; readonly limit?: number | undefined }): Promise<CategorySummary[]>;
  /** `CONFLICT` when the name or an alias is taken. */
  create(input: CreateCategoryInput): Promise<Category>;
  /** The category with counts per kind and its linked objects. */
  get(input: CategoryObjectsInput): Promise<CategoryDetail>;
  update(input: UpdateCategoryInput): Promise<Category>;
  /**
   * Links an object (it must exist in the scope; host objects are taken on trust). `CONFLICT` when
   * the object is already in `registry.maxPerObject` categories.
   */
  link(input: LinkInput): Promise<{ linked: boolean }>;
  unlink(input: LinkInput): Promise<{ unlinked: boolean }>;
  /** Objects by category. */
  objects(input: CategoryObjectsInput): Promise<LinkedCategoryObject[]>;
  /** Categories by object. */
  categoriesOf(input: { readonly agentId: string; readonly object: CategoryObject }): Promise<Category[]>;
  /** What `delete` would remove, unlink and keep, changing nothing. */
  deletePreview(input: DeleteCategoryInput): Promise<CategoryDeletePlan>;
  /**
   * Deletes the category: objects linked only to it are removed (memories forgotten with history,
   * notes archived, documents deleted, transcripts deleted; pinned memories kept unless `force`;
   * host objects reported, never touched), shared objects are unlinked. Returns what it did.
   */
  delete(input: DeleteCategoryInput): Promise<CategoryDeletePlan>;
  /** Merges `id` into `intoId`: links and aliases move to the survivor; `id` is removed. */
  merge(input: MergeCategoryInput): Promise<CategoryMergeResult>;
  /** The category's audit trail, oldest first (kept after a delete or merge). */
  history(input: CategoryRef): Promise<CategoryEvent[]>;
}
