import { idSchema, invalidInput, parseInput, yieldToEventLoop } from '@memory/core';
import {
  deleteRegistryCategoryProgram,
  deleteTranscriptProgram,
  findRegistryObjectProgram,
  forgetMemoryProgram,
  insertRegistryEventProgram,
  listCategoryLinksProgram,
  listObjectCategoriesProgram,
  moveCategoryLinksProgram,
  type Program,
  partitionCategoryObjectsProgram,
  type RegistryObjectKey,
  runWriterProgram,
  updateRegistryCategoryProgram,
  type WriterTarget,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { type NotesContext, transitionNoteProgram } from './notes.js';
import { actorOf, requireCategory } from './registry.js';
import { normalizeCategoryName } from './registry-names.js';
import { type CategoryObject, objectKey, objectOfKey } from './registry-objects.js';
import {
  aliasesOf,
  auditSchema,
  type Category,
  type CategorySummary,
  categoryRefSchema,
  toCategory,
} from './registry-views.js';

/** Why an object linked only to a deleted category is kept (it is unlinked either way). */
export type KeptReason = 'pinned' | 'host-owned' | 'already-gone';

/**
 * What deleting a category does (`deletePreview`) or did (`delete`). Objects linked only to this
 * category are removed: memories forgotten with history (recoverable for
 * `retention.recoverWindowDays`), notes archived (notes are never deleted; `note_events` records
 * it), documents deleted with the chunks no other document shares, transcripts deleted. Objects
 * shared with another category are only unlinked.
 */
export interface CategoryDeletePlan {
  readonly category: CategorySummary;
  readonly remove: readonly CategoryObject[];
  readonly unlink: readonly CategoryObject[];
  /**
   * Linked only here but kept (and unlinked): pinned memories unless `force`; host objects, which
   * the host owns (delete them yourself if you want them gone); objects already forgotten,
   * archived or gone.
   */
  readonly keep: ReadonlyArray<{ readonly object: CategoryObject; readonly reason: KeptReason }>;
}

/** The outcome of `registry.merge`. */
export interface CategoryMergeResult {
  /** The surviving category, with the merged one's name and aliases among its aliases. */
  readonly category: Category;
  /** Links moved to the survivor. */
  readonly moved: number;
  /** Objects that were in both categories (they keep their one link to the survivor). */
  readonly alreadyLinked: number;
}

const deleteSchema = categoryRefSchema.extend({ force: z.boolean().optional(), ...auditSchema });
const mergeSchema = categoryRefSchema.extend({ intoId: idSchema, ...auditSchema });

/** Objects removed per write transaction: a forgotten memory or a deleted document is several writes. */
const REMOVE_BATCH = 10;

/** What becomes of an object linked only to the category: removed, or kept for a reason. */
function* fateOf(agentId: string, key: RegistryObjectKey, force: boolean): Program<'remove' | KeptReason> {
  switch (key.kind) {
    case 'memory': {
      const facts = yield* findRegistryObjectProgram(agentId, key);
      if (!facts || facts.status === 'forgotten') return 'already-gone';
      return facts.pinned && !force ? 'pinned' : 'remove';
    }
    case 'document': {
      const facts = yield* findRegistryObjectProgram(agentId, key);
      return !facts || facts.status === 'deleted' ? 'already-gone' : 'remove';
    }
    case 'transcript':
      return 'remove';
    case 'note': {
      const facts = yield* findRegistryObjectProgram(agentId, key);
      return !facts || facts.status === 'archived' ? 'already-gone' : 'remove';
    }
    case 'host':
      return 'host-owned';
  }
}

function* planDelete(agentId: string, id: string, force: boolean): Program<CategoryDeletePlan> {
  const row = yield* requireCategory(agentId, id);
  const { exclusive, shared } = yield* partitionCategoryObjectsProgram(agentId, id);
  const remove: CategoryObject[] = [];
  const keep: Array<{ object: CategoryObject; reason: KeptReason }> = [];
  for (const key of exclusive) {
    const fate = yield* fateOf(agentId, key, force);
    if (fate === 'remove') remove.push(objectOfKey(key));
    else keep.push({ object: objectOfKey(key), reason: fate });
  }
  const category = { ...toCategory(row), objectCount: exclusive.length + shared.length };
  return { category, remove, unlink: shared.map(objectOfKey), keep };
}

/** What `registry.delete` would do now, changing nothing. `NOT_FOUND` outside the scope. */
export function previewDelete(ctx: EngineContext, input: unknown): Promise<CategoryDeletePlan> {
  const { agentId, id, force } = parseInput(deleteSchema, input, 'registry.deletePreview');
  return ctx.portable.db.read(() => planDelete(agentId, id, force === true));
}

/**
 * Deletes a category with its cascade (see {@link CategoryDeletePlan}), in bounded transactions:
 * objects are removed ten per transaction, then the category and its remaining links go in one.
 * An object that gained another category meanwhile is only unlinked. Interrupted, calling it again
 * continues (removed objects are already gone). Documents are deleted by the documents part right
 * after the transaction that found them still linked only here (their chunks are its to remove).
 */
export async function deleteCategory(nc: NotesContext, input: unknown): Promise<CategoryDeletePlan> {
  const { ctx } = nc;
  const request = parseInput(deleteSchema, input, 'registry.delete');
  const { agentId, id } = request;
  const force = request.force === true;
  const { portable } = ctx;
  const plan = await portable.db.read(() => planDelete(agentId, id, force));
  const actor = actorOf(agentId, request);
  const reason = request.reason ?? `registry category ${JSON.stringify(plan.category.name)} deleted`;
  const removed: CategoryObject[] = [];
  for (let start = 0; start < plan.remove.length; start += REMOVE_BATCH) {
    if (start > 0) await yieldToEventLoop();
    const batch = plan.remove.slice(start, start + REMOVE_BATCH);
    const outcomes = await runWriterProgram(ctx.portable, { agentIds: [agentId] }, function* (target) {
      yield* requireCategory(agentId, id);
      const results: Array<'removed' | 'kept' | 'document'> = [];
      for (const object of batch)
        results.push(yield* removeExclusive(target, nc, { agentId, id, object, force, actor, reason }));
      return results;
    });
    for (const [i, object] of batch.entries()) {
      const outcome = outcomes[i];
      if (outcome === 'removed') removed.push(object);
      else if (outcome === 'document' && object.kind === 'document') {
        const deleted = await ctx.documents.delete({ agentId, id: object.id });
        if (deleted.deleted) removed.push(object);
      }
    }
  }
  const { clock } = portable;
  return portable.db.write(function* () {
    const row = yield* requireCategory(agentId, id);
    const gone = new Set([...removed, ...plan.keep.map((k) => k.object)].map(keyText));
    const unlink = (yield* listCategoryLinksProgram(agentId, id, { limit: Number.MAX_SAFE_INTEGER }))
      .map((l) => objectOfKey({ kind: l.object_kind, hostType: l.host_type, ref: l.object_ref }))
      .filter((o) => !gone.has(keyText(o)));
    yield* deleteRegistryCategoryProgram(agentId, id);
    const result: CategoryDeletePlan = { category: plan.category, remove: removed, unlink, keep: plan.keep };
    yield* insertRegistryEventProgram({
      agentId,
      categoryId: id,
      action: 'deleted',
      actor,
      reason,
      before: toCategory(row),
      after: { removed: removed.length, unlinked: unlink.length, kept: plan.keep.length },
      now: clock.now(),
    });
    return result;
  });
}

const keyText = (o: CategoryObject): string =>
  o.kind === 'host' ? `host\u0000${o.type}\u0000${o.refId}` : `${o.kind}\u0000\u0000${o.id}`;

/**
 * Removes one object if it is still linked only to this category: `removed`, `kept` (it gained
 * another category, or its fate changed), or `document` (still exclusive: the caller deletes it
 * through the documents part once this transaction committed).
 */
function* removeExclusive(
  target: WriterTarget,
  nc: NotesContext,
  step: {
    agentId: string;
    id: string;
    object: CategoryObject;
    force: boolean;
    actor: { id: string; type: 'operator' | 'agent' | 'engine' };
    reason: string;
  },
): Program<'removed' | 'kept' | 'document'> {
  const { ctx } = nc;
  const { agentId, id, object } = step;
  const key = objectKey(object);
  const categories = yield* listObjectCategoriesProgram(agentId, key);
  if (categories.length !== 1 || categories[0]?.id !== id) return 'kept';
  if ((yield* fateOf(agentId, key, step.force)) !== 'remove') return 'kept';
  const now = ctx.portable.clock.now();
  switch (object.kind) {
    case 'memory': {
      const request = {
        agentId,
        id: object.id,
        force: step.force,
        audit: { actor: step.actor, reason: step.reason, metadata: { registryCategoryId: id } },
      };
      return (yield* forgetMemoryProgram(target, ctx.memoryWrites, request, now)) ? 'removed' : 'kept';
    }
    case 'document':
      return 'document';
    case 'transcript':
      return (yield* deleteTranscriptProgram(target.dialect, agentId, object.id)) ? 'removed' : 'kept';
    // Notes are never deleted: archiving is their removal, audited in note_events.
    case 'note': {
      const transition = { agentId, id: object.id, actor: step.actor, reason: step.reason };
      const deps = { dialect: target.dialect, clock: ctx.portable.clock, ids: ctx.portable.ids };
      yield* transitionNoteProgram(deps, transition, 'archive');
      return 'removed';
    }
    case 'host':
      return 'kept';
  }
}

/**
 * Merges category `id` into `intoId`: its links move to the survivor (an object in both keeps one
 * link), its name and aliases become the survivor's aliases, and it is removed. Both sides are
 * audited. `NOT_FOUND` unless both are in the scope.
 */
export function mergeCategories(ctx: EngineContext, input: unknown): Promise<CategoryMergeResult> {
  const request = parseInput(mergeSchema, input, 'registry.merge');
  const { agentId, id, intoId } = request;
  if (id === intoId)
    throw invalidInput('registry.merge', [{ path: ['intoId'], message: 'a category cannot be merged into itself' }]);
  const { clock } = ctx.portable;
  return ctx.portable.db.write(function* () {
    const from = yield* requireCategory(agentId, id);
    const into = yield* requireCategory(agentId, intoId);
    const before = toCategory(into);
    const aliases: string[] = [];
    const seen = new Set([into.normalized_name]);
    for (const name of [...before.aliases, from.name, ...aliasesOf(from)]) {
      const normalized = normalizeCategoryName(name);
      if (seen.has(normalized)) continue;
      seen.add(normalized);
      aliases.push(name);
    }
    const { moved, alreadyLinked } = yield* moveCategoryLinksProgram(agentId, id, intoId);
    yield* deleteRegistryCategoryProgram(agentId, id);
    const now = clock.now();
    yield* updateRegistryCategoryProgram(agentId, intoId, { aliases_json: JSON.stringify(aliases), updated_at: now });
    const category = toCategory(yield* requireCategory(agentId, intoId));
    const audit = { actor: actorOf(agentId, request), reason: request.reason ?? null, now };
    yield* insertRegistryEventProgram({
      agentId,
      categoryId: intoId,
      action: 'merged',
      ...audit,
      before,
      after: { category, absorbed: toCategory(from), moved, alreadyLinked },
    });
    yield* insertRegistryEventProgram({
      agentId,
      categoryId: id,
      action: 'merged_into',
      ...audit,
      before: toCategory(from),
      after: { intoId },
    });
    return { category, moved, alreadyLinked };
  });
}
