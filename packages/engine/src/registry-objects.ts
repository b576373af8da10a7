import { idSchema, labelSchema, MemoryError, sessionKeySchema } from '@memory/core';
import { findRegistryObjectProgram, type Program, type RegistryLinkRow, type RegistryObjectKey } from '@memory/store';
import { z } from 'zod';

/**
 * What a registry category can hold: the engine's own objects by id (a transcript by its session
 * key), or a host object by the same `{ type, refId }` reference a memory's `linkedEntities` uses.
 */
export type CategoryObject =
  | { readonly kind: 'memory' | 'note' | 'document'; readonly id: string }
  | { readonly kind: 'transcript'; readonly id: string }
  | { readonly kind: 'host'; readonly type: string; readonly refId: string };

/** The kinds of {@link CategoryObject}. */
export type CategoryObjectKind = CategoryObject['kind'];

/**
 * Where a linked object stands: `live` (for a note: active or resolved); `forgotten` (a forgotten
 * memory keeps its links, so recovering it restores its categories); `archived` (an archived
 * note); `deleted` (a deleted document); `missing` (no longer in the scope); `host` (the host owns
 * it; the engine cannot tell).
 */
export type CategoryObjectState = 'live' | 'forgotten' | 'archived' | 'deleted' | 'missing' | 'host';

/** A linked object as `registry.get` and `registry.objects` return it. Times are epoch milliseconds. */
export type LinkedCategoryObject = CategoryObject & {
  readonly state: CategoryObjectState;
  /** A short text to show: a memory's content, a note's or document's title, a transcript's start (≤ 200 chars). */
  readonly preview: string | null;
  readonly linkedAt: number;
  readonly linkedBy: 'operator' | 'agent' | 'engine';
};

/** A {@link CategoryObject} checked: ids well-formed, session keys and host references by the shared rules. */
export const categoryObjectSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.enum(['memory', 'note', 'document']), id: idSchema }),
  z.strictObject({ kind: z.literal('transcript'), id: sessionKeySchema }),
  z.strictObject({
    kind: z.literal('host'),
    type: labelSchema(64, 'object.type'),
    refId: labelSchema(256, 'object.refId'),
  }),
]);

/** The link table's key of an object. */
export function objectKey(object: CategoryObject): RegistryObjectKey {
  return object.kind === 'host'
    ? { kind: 'host', hostType: object.type, ref: object.refId }
    : { kind: object.kind, hostType: '', ref: object.id };
}

/** The object a link table key names. */
export function objectOfKey(key: RegistryObjectKey): CategoryObject {
  return key.kind === 'host' ? { kind: 'host', type: key.hostType, refId: key.ref } : { kind: key.kind, id: key.ref };
}

const PREVIEW_CHARS = 200;
const preview = (text: string | null | undefined): string | null =>
  text === null || text === undefined ? null : text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;

/** An object's state and preview, read in the caller's scope: one lookup per kind. */
export function* describeObject(
  agentId: string,
  key: RegistryObjectKey,
): Program<{ state: CategoryObjectState; preview: string | null }> {
  if (key.kind === 'host') return { state: 'host', preview: null };
  const facts = yield* findRegistryObjectProgram(agentId, key);
  return facts ? { state: facts.status, preview: preview(facts.text) } : { state: 'missing', preview: null };
}

/** `NOT_FOUND` unless the object exists (live) in the scope; host objects are the host's to vouch for. */
export function* assertLinkable(agentId: string, object: CategoryObject): Program<void> {
  const { state } = yield* describeObject(agentId, objectKey(object));
  if (state === 'live' || state === 'host') return;
  const name = object.kind === 'host' ? `${object.type}:${object.refId}` : object.id;
  throw new MemoryError('NOT_FOUND', `no ${object.kind} ${name} in this scope`, {
    details: { kind: object.kind, ref: name },
  });
}

/** A link row as the public API shows it. */
export function* toLinkedObject(row: RegistryLinkRow): Program<LinkedCategoryObject> {
  const key = { kind: row.object_kind, hostType: row.host_type, ref: row.object_ref };
  return {
    ...objectOfKey(key),
    ...(yield* describeObject(row.agent_id, key)),
    linkedAt: row.created_at,
    linkedBy: row.created_by,
  };
}
