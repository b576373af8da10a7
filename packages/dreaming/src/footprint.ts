import {
  aspectMergeFootprintProgram,
  canonicalEntityName,
  entityAliasRefsProgram,
  entityMergeFootprintProgram,
  findOpenAttentionIdProgram,
  graphRowSnapshotProgram,
  latestActiveClaimProgram,
  openAttentionAboutProgram,
  type Program,
  type RowImage,
  type RowKind,
  type RowRef,
  readRowImageProgram,
} from '@memory/store';
import type { DreamingOperation } from './operations.js';
import { hygieneSubjects } from './validate.js';
import type { WriteOutcome } from './writers.js';

/** One row an operation wrote: its image before (null: it did not exist) and after (null: gone). */
export interface RowChange {
  readonly kind: RowKind;
  readonly key: readonly string[];
  readonly before: RowImage | null;
  readonly after: RowImage | null;
}

const one = (kind: RowKind, id: string): RowRef => ({ kind, key: [id] });

/**
 * The rows an operation may write that exist before it runs (or whose key is known before: the
 * aliases and mentions a merge may add). Hygiene operations also resolve the open attention about
 * their subjects.
 */
function* refsBeforeProgram(agentId: string, op: DreamingOperation): Program<RowRef[]> {
  const attention: RowRef[] = [];
  for (const subject of hygieneSubjects(op)) attention.push(...(yield* openAttentionAboutProgram(agentId, subject)));
  switch (op.operation) {
    case 'create_entity':
    case 'create_aspect':
    case 'add_claim':
    case 'create_link':
    case 'remember_memory':
      return [];
    case 'rename_entity': {
      const row = (yield* graphRowSnapshotProgram('entity', op.payload.entityId)) as
        | { canonical_name?: string }
        | undefined;
      const oldAlias: RowRef[] = row?.canonical_name
        ? [{ kind: 'alias', key: [op.payload.entityId, row.canonical_name] }]
        : [];
      return [one('entity', op.payload.entityId), ...(yield* entityAliasRefsProgram(op.payload.entityId)), ...oldAlias];
    }
    case 'archive_entity':
      return [one('entity', op.payload.entityId), ...attention];
    case 'merge_entities': {
      const { sourceEntityId: from, targetEntityId: to } = op.payload;
      const row = (yield* graphRowSnapshotProgram('entity', from)) as { name?: string } | undefined;
      return [...(yield* entityMergeFootprintProgram(from, to, canonicalEntityName(row?.name ?? ''))), ...attention];
    }
    case 'rename_aspect':
      return [one('aspect', op.payload.aspectId)];
    case 'archive_aspect':
      return [one('aspect', op.payload.aspectId), ...attention];
    case 'merge_aspects':
      return [...(yield* aspectMergeFootprintProgram(op.payload.sourceAspectId)), ...attention];
    case 'set_claim': {
      const current = yield* latestActiveClaimProgram(op.payload.aspectId, op.payload.claimKey);
      return current ? [one('claim', current.id)] : [];
    }
    case 'supersede_claim':
      return [one('claim', op.payload.claimId)];
    case 'archive_claim':
      return [one('claim', op.payload.claimId), ...attention];
    case 'update_link':
      return [one('link', op.payload.linkId)];
    case 'archive_link':
      return [one('link', op.payload.linkId), ...attention];
    case 'supersede_memory':
      return [one('memory', op.payload.memoryId)];
    case 'archive_memory':
      return [one('memory', op.payload.memoryId), ...attention];
    case 'flag': {
      const open = yield* findOpenAttentionIdProgram(agentId, op.payload.kind, op.payload.subjectRef);
      return open ? [one('attention', open)] : [];
    }
    case 'decline_attention':
      return [one('attention', op.payload.attentionId)];
    default: {
      const unhandled: never = op;
      return unhandled;
    }
  }
}

/** Rows the operation created under ids minted while it ran (they did not exist before). */
function* refsCreatedProgram(op: DreamingOperation, outcome: WriteOutcome): Program<RowRef[]> {
  if (outcome.deduped === true) return [];
  switch (op.operation) {
    case 'create_entity':
      return [one('entity', outcome.targetId), ...(yield* entityAliasRefsProgram(outcome.targetId))];
    case 'create_aspect':
      return [one('aspect', outcome.targetId)];
    case 'add_claim':
    case 'set_claim':
    case 'supersede_claim':
      return [one('claim', outcome.targetId)];
    case 'create_link':
      return [one('link', outcome.targetId)];
    case 'remember_memory':
      return [one('memory', outcome.targetId)];
    case 'flag':
      return [one('attention', outcome.targetId)];
    default:
      return [];
  }
}

const refKey = (ref: RowRef): string => `${ref.kind}\u0000${ref.key.join('\u0000')}`;

/**
 * Images of the rows `op` may write, read before it runs; `finish` reads them again after it and
 * keeps what changed.
 */
export function* captureChangesProgram(
  agentId: string,
  op: DreamingOperation,
): Program<{ finish(outcome: WriteOutcome): Program<RowChange[]> }> {
  const before = new Map<string, { ref: RowRef; image: RowImage | null }>();
  for (const ref of yield* refsBeforeProgram(agentId, op))
    before.set(refKey(ref), { ref, image: yield* readRowImageProgram(ref) });
  return {
    *finish(outcome) {
      const all = new Map(before);
      for (const ref of yield* refsCreatedProgram(op, outcome))
        if (!all.has(refKey(ref))) all.set(refKey(ref), { ref, image: null });
      const changes: RowChange[] = [];
      for (const { ref, image } of all.values()) {
        const after = yield* readRowImageProgram(ref);
        if (JSON.stringify(after) !== JSON.stringify(image))
          changes.push({ kind: ref.kind, key: ref.key, before: image, after });
      }
      return changes;
    },
  };
}
