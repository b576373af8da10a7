import { idSchema, invalidInput, parseInput, yieldToEventLoop } from '@memory/core';
import {
  deleteRegistryCategory,
  deleteTranscript,
  findDocument,
  findMemory,
  findNote,
  forgetMemoryRecord,
  insertRegistryEvent,
  listCategoryLinks,
  listObjectCategories,
  moveCategoryLinks,
  partitionCategoryObjects,
  type RegistryObjectKey,
  runMemoryWriteOnSqlite,
  type SqlExecutor,
  updateRegistryCategory,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { type NotesContext, transitionNote } from './notes.js';
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
function fateOf(sql: SqlExecutor, agentId: string, key: RegistryObjectKey, force: boolean): 'remove' | KeptReason {
  switch (key.kind) {
    case 'memory': {
      const row = findMemory(sql, agentId, key.ref, { includeDeleted: true });
      if (!row || row.is_deleted === 1) return 'already-gone';
      return row.pinned === 1 && !force ? 'pinned' : 'remove';
    }
    case 'document': {
      const row = findDocument(sql, agentId, key.ref);
      return !row || row.status === 'deleted' ? 'already-gone' : 'remove';
    }
    case 'transcript':
      return 'remove';
    case 'note': {
      const row = findNote(sql, agentId, key.ref);
      return !row || row.status === 'archived' ? 'already-gone' : 'remove';
    }
    case 'host':
      return 'host-owned';
  }
}

function planDelete(sql: SqlExecutor, agentId: string, id: string, force: boolean): CategoryDeletePlan {
  const row = requireCategory(sql, agentId, id);
  const { exclusive, shared } = partitionCategoryObjects(sql, agentId, id);
  const remove: CategoryObject[] = [];
  const keep: Array<{ object: CategoryObject; reason: KeptReason }> = [];
  for (const key of exclusive) {
    const fate = fateOf(sql, agentId, key, force);
    if (fate === 'remove') remove.push(objectOfKey(key));
    else keep.push({ object: objectOfKey(key), reason: fate });
  }
  const category = { ...toCategory(row), objectCount: exclusive.length + shared.length };
  return { category, remove, unlink: shared.map(objectOfKey), keep };
}

/** What `registry.delete` would do now, changing nothing. `NOT_FOUND` outside the scope. */
export function previewDelete(ctx: EngineContext, input: unknown): CategoryDeletePlan {
  const { agentId, id, force } = parseInput(deleteSchema, input, 'registry.deletePreview');
  return ctx.store.read((sql) => planDelete(sql, agentId, id, force === true));
}

/**
 * Deletes a category with its cascade (see {@link CategoryDeletePlan}), in bounded transactions:
 * objects are removed ten per transaction, then the category and its remaining links go in one.
 * An object that gained another category meanwhile is only unlinked. Interrupted, calling it again
 * continues (removed objects are already gone).
 */
export async function deleteCategory(nc: NotesContext, input: unknown): Promise<CategoryDeletePlan> {
  const { ctx } = nc;
  const request = parseInput(deleteSchema, input, 'registry.delete');
  const { agentId, id } = request;
  const force = request.force === true;
  const { store } = ctx;
  const plan = store.read((sql) => planDelete(sql, agentId, id, force));
  const actor = actorOf(agentId, request);
  const reason = request.reason ?? `registry category ${JSON.stringify(plan.category.name)} deleted`;
  const removed: CategoryObject[] = [];
  for (let start = 0; start < plan.remove.length; start += REMOVE_BATCH) {
    if (start > 0) await yieldToEventLoop();
    store.write((sql) => {
      requireCategory(sql, agentId, id);
      for (const object of plan.remove.slice(start, start + REMOVE_BATCH)) {
        if (removeExclusive(sql, nc, { agentId, id, object, force, actor, reason })) removed.push(object);
      }
    });
  }
  return store.write((sql) => {
    const row = requireCategory(sql, agentId, id);
    const gone = new Set([...removed, ...plan.keep.map((k) => k.object)].map(keyText));
    const unlink = listCategoryLinks(sql, agentId, id, { limit: Number.MAX_SAFE_INTEGER })
      .map((l) => objectOfKey({ kind: l.object_kind, hostType: l.host_type, ref: l.object_ref }))
      .filter((o) => !gone.has(keyText(o)));
    deleteRegistryCategory(sql, agentId, id);
    const result: CategoryDeletePlan = { category: plan.category, remove: removed, unlink, keep: plan.keep };
    insertRegistryEvent(sql, {
      agentId,
      categoryId: id,
      action: 'deleted',
      actor,
      reason,
      before: toCategory(row),
      after: { removed: removed.length, unlinked: unlink.length, kept: plan.keep.length },
      now: store.clock.now(),
    });
    return result;
  });
}

const keyText = (o: CategoryObject): string =>
  o.kind === 'host' ? `host\u0000${o.type}\u0000${o.refId}` : `${o.kind}\u0000\u0000${o.id}`;

/** Removes one object if it is still linked only to this category; true when it was removed. */
function removeExclusive(
  sql: SqlExecutor,
  nc: NotesContext,
  step: {
    agentId: string;
    id: string;
    object: CategoryObject;
    force: boolean;
    actor: { id: string; type: 'operator' | 'agent' | 'engine' };
    reason: string;
  },
): boolean {
  const { ctx } = nc;
  const { agentId, id, object } = step;
  const key = objectKey(object);
  const categories = listObjectCategories(sql, agentId, key);
  if (categories.length !== 1 || categories[0]?.id !== id) return false;
  if (fateOf(sql, agentId, key, step.force) !== 'remove') return false;
  switch (object.kind) {
    case 'memory':
      return forgetMemoryRecord(
        sql,
        ctx.memoryWrites,
        {
          agentId,
          id: object.id,
          force: step.force,
          audit: { actor: step.actor, reason: step.reason, metadata: { registryCategoryId: id } },
        },
        ctx.store.clock.now(),
      );
    case 'document': {
      // The documents' own delete, inside this transaction (the registry runs on SQLite only so far);
      // its queued ingest is cancelled in the same transaction, as the SQLite queue allows.
      const row = findDocument(sql, agentId, object.id);
      if (!row) return false;
      const now = ctx.store.clock.now();
      const reason = `document ${object.id} deleted`;
      const deletion = runMemoryWriteOnSqlite(sql, (target) =>
        ctx.documents.deleteProgram(target, row, 'document-delete', reason, now),
      );
      if (deletion.deleted) ctx.queue.cancel({ documentId: object.id, apply: true });
      return deletion.deleted;
    }
    case 'transcript':
      return deleteTranscript(sql, agentId, object.id);
    // Notes are never deleted: archiving is their removal, audited in note_events.
    case 'note':
      transitionNote(nc, { agentId, id: object.id, actor: step.actor, reason: step.reason }, 'archive');
      return true;
    case 'host':
      return false;
  }
}

/**
 * Merges category `id` into `intoId`: its links move to the survivor (an object in both keeps one
 * link), its name and aliases become the survivor's aliases, and it is removed. Both sides are
 * audited. `NOT_FOUND` unless both are in the scope.
 */
export function mergeCategories(ctx: EngineContext, input: unknown): CategoryMergeResult {
  const request = parseInput(mergeSchema, input, 'registry.merge');
  const { agentId, id, intoId } = request;
  if (id === intoId)
    throw invalidInput('registry.merge', [{ path: ['intoId'], message: 'a category cannot be merged into itself' }]);
  return ctx.store.write((sql) => {
    const from = requireCategory(sql, agentId, id);
    const into = requireCategory(sql, agentId, intoId);
    const before = toCategory(into);
    const aliases: string[] = [];
    const seen = new Set([into.normalized_name]);
    for (const name of [...before.aliases, from.name, ...aliasesOf(from)]) {
      const normalized = normalizeCategoryName(name);
      if (seen.has(normalized)) continue;
      seen.add(normalized);
      aliases.push(name);
    }
    const { moved, alreadyLinked } = moveCategoryLinks(sql, agentId, id, intoId);
    deleteRegistryCategory(sql, agentId, id);
    const now = ctx.store.clock.now();
    updateRegistryCategory(sql, agentId, intoId, { aliases_json: JSON.stringify(aliases), updated_at: now });
    const category = toCategory(requireCategory(sql, agentId, intoId));
    const audit = { actor: actorOf(agentId, request), reason: request.reason ?? null, now };
    insertRegistryEvent(sql, {
      agentId,
      categoryId: intoId,
      action: 'merged',
      ...audit,
      before,
      after: { category, absorbed: toCategory(from), moved, alreadyLinked },
    });
    insertRegistryEvent(sql, {
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
