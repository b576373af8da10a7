import {
  addEntityAliasProgram,
  aspectEntityIdProgram,
  changeMemoryProgram,
  createMemoriesProgram,
  declineAttentionProgram,
  findClaimBasisProgram,
  findOpenAttentionIdProgram,
  forgetMemoryProgram,
  graphRowSnapshotProgram,
  insertAspectProgram,
  insertClaimProgram,
  insertDependencyProgram,
  insertEntityProgram,
  latestActiveClaimProgram,
  type MemoryAudit,
  type MemoryWriteDeps,
  mergeAspectsProgram,
  mergeEntitiesProgram,
  openAttentionProgram,
  type Program,
  prepareContent,
  renameAspectProgram,
  renameEntityProgram,
  setGraphRowStatusProgram,
  supersedeClaimProgram,
  updateDependencyProgram,
  type WriterTarget,
} from '@memory/store';
import { parseSourceRef } from './evidence.js';
import type { DreamingOperation } from './operations.js';

/** Who is writing, for history and provenance. */
export interface WriteContext {
  readonly agentId: string;
  readonly passId: string | null;
  readonly actor: { readonly id: string; readonly type: 'operator' | 'agent' | 'engine' };
  readonly now: number;
  readonly nextId: () => string;
  /** The one memory writer's dependencies: memory operations go through it like every other path. */
  readonly memoryWrites: MemoryWriteDeps;
}

/** What one applied operation touched. */
export interface WriteOutcome {
  readonly targetType: 'entity' | 'aspect' | 'claim' | 'link' | 'memory' | 'attention';
  readonly targetId: string;
  /** remember_memory of content the agent already holds: the existing memory, nothing written. */
  readonly deduped?: boolean;
  /** The target's row before this operation changed it (kept with the provenance). */
  readonly previous?: Readonly<Record<string, unknown>>;
}

/** The audit record of a memory operation: the pass, the operation and its evidence. */
function memoryAudit(ctx: WriteContext, op: DreamingOperation): MemoryAudit {
  return {
    actor: ctx.actor,
    requestId: ctx.passId,
    reason: op.reason ?? `dreaming ${op.operation}`,
    metadata: { dreaming: { passId: ctx.passId, operation: op.operation, evidence: op.evidence ?? [] } },
  };
}

function* insertNewClaimProgram(
  ctx: WriteContext,
  op: DreamingOperation,
  base: { entityId: string; aspectId: string; claimKey: string; kind: 'attribute' | 'constraint' },
  fields: {
    content: string;
    importance?: number | undefined;
    validFrom?: number | undefined;
    validUntil?: number | undefined;
    occurredAt?: number | undefined;
    timePrecision?: string | undefined;
  },
): Program<string> {
  const id = ctx.nextId();
  // A claim that quotes a memory points at it, so recall's graph traversal can reach that memory.
  const sourceMemory = (op.evidence ?? []).map((c) => parseSourceRef(c.sourceRef)).find((r) => r?.kind === 'memory');
  yield* insertClaimProgram({
    id,
    agentId: ctx.agentId,
    ...(sourceMemory ? { sourceMemoryId: sourceMemory.id } : {}),
    entityId: base.entityId,
    aspectId: base.aspectId,
    claimKey: base.claimKey,
    kind: base.kind,
    content: fields.content,
    confidence: op.confidence ?? 1,
    ...(fields.importance !== undefined ? { importance: fields.importance } : {}),
    ...(fields.validFrom !== undefined ? { validFrom: fields.validFrom } : {}),
    ...(fields.validUntil !== undefined ? { validUntil: fields.validUntil } : {}),
    ...(fields.occurredAt !== undefined ? { occurredAt: fields.occurredAt } : {}),
    ...(fields.timePrecision !== undefined ? { timePrecision: fields.timePrecision } : {}),
    evidence: op.evidence ?? [],
    now: ctx.now,
  });
  return id;
}

/**
 * Writes one decided operation. Runs inside the caller's savepoint: a throw undoes just this
 * operation. Targets were checked by the decision step; constraint violations from concurrent
 * changes surface as throws.
 */
export function* writeOperationProgram(
  target: WriterTarget,
  ctx: WriteContext,
  op: DreamingOperation,
): Program<WriteOutcome> {
  switch (op.operation) {
    case 'create_entity': {
      const id = ctx.nextId();
      yield* insertEntityProgram({
        id,
        agentId: ctx.agentId,
        name: op.payload.name,
        ...(op.payload.entityType ? { entityType: op.payload.entityType } : {}),
        ...(op.payload.description ? { description: op.payload.description } : {}),
        aliases: op.payload.aliases ?? [],
        now: ctx.now,
      });
      return { targetType: 'entity', targetId: id };
    }
    case 'rename_entity': {
      const previous = yield* graphRowSnapshotProgram('entity', op.payload.entityId);
      const old = previous as { name: string } | undefined;
      yield* renameEntityProgram(op.payload.entityId, op.payload.name, ctx.now);
      // The old name still resolves.
      if (old)
        yield* addEntityAliasProgram({
          entityId: op.payload.entityId,
          agentId: ctx.agentId,
          alias: old.name,
          now: ctx.now,
        });
      return { targetType: 'entity', targetId: op.payload.entityId, ...(previous ? { previous } : {}) };
    }
    case 'archive_entity': {
      const previous = yield* graphRowSnapshotProgram('entity', op.payload.entityId);
      yield* setGraphRowStatusProgram('entity', op.payload.entityId, 'archived', ctx.now);
      return { targetType: 'entity', targetId: op.payload.entityId, ...(previous ? { previous } : {}) };
    }
    case 'merge_entities': {
      const { sourceEntityId: from, targetEntityId: to } = op.payload;
      yield* mergeEntitiesProgram({ agentId: ctx.agentId, fromId: from, toId: to, now: ctx.now });
      return { targetType: 'entity', targetId: to };
    }
    case 'create_aspect': {
      const id = ctx.nextId();
      yield* insertAspectProgram({
        id,
        agentId: ctx.agentId,
        entityId: op.payload.entityId,
        name: op.payload.name,
        now: ctx.now,
      });
      return { targetType: 'aspect', targetId: id };
    }
    case 'rename_aspect': {
      const previous = yield* graphRowSnapshotProgram('aspect', op.payload.aspectId);
      yield* renameAspectProgram(op.payload.aspectId, op.payload.name, ctx.now);
      return { targetType: 'aspect', targetId: op.payload.aspectId, ...(previous ? { previous } : {}) };
    }
    case 'archive_aspect': {
      const previous = yield* graphRowSnapshotProgram('aspect', op.payload.aspectId);
      yield* setGraphRowStatusProgram('aspect', op.payload.aspectId, 'archived', ctx.now);
      return { targetType: 'aspect', targetId: op.payload.aspectId, ...(previous ? { previous } : {}) };
    }
    case 'merge_aspects':
      yield* mergeAspectsProgram({ fromId: op.payload.sourceAspectId, toId: op.payload.targetAspectId, now: ctx.now });
      return { targetType: 'aspect', targetId: op.payload.targetAspectId };
    case 'add_claim':
    case 'set_claim': {
      const entityId = yield* aspectEntityIdProgram(op.payload.aspectId);
      if (entityId === undefined) throw new Error(`aspect ${op.payload.aspectId} disappeared`);
      const current =
        op.operation === 'set_claim'
          ? yield* latestActiveClaimProgram(op.payload.aspectId, op.payload.claimKey)
          : undefined;
      const id = yield* insertNewClaimProgram(
        ctx,
        op,
        {
          entityId,
          aspectId: op.payload.aspectId,
          claimKey: op.payload.claimKey,
          kind: op.payload.kind ?? 'attribute',
        },
        op.payload,
      );
      if (current)
        yield* supersedeClaimProgram({
          oldId: current.id,
          newId: id,
          newValidFrom: op.payload.validFrom ?? null,
          now: ctx.now,
        });
      return { targetType: 'claim', targetId: id };
    }
    case 'supersede_claim': {
      const old = yield* findClaimBasisProgram(op.payload.claimId);
      if (!old) throw new Error(`claim ${op.payload.claimId} disappeared`);
      const id = yield* insertNewClaimProgram(
        ctx,
        op,
        { entityId: old.entity_id, aspectId: old.aspect_id, claimKey: old.claim_key, kind: old.kind },
        { importance: old.importance, ...op.payload },
      );
      yield* supersedeClaimProgram({
        oldId: op.payload.claimId,
        newId: id,
        newValidFrom: op.payload.validFrom ?? null,
        now: ctx.now,
      });
      return { targetType: 'claim', targetId: id };
    }
    case 'archive_claim': {
      const previous = yield* graphRowSnapshotProgram('claim', op.payload.claimId);
      yield* setGraphRowStatusProgram('claim', op.payload.claimId, 'archived', ctx.now);
      return { targetType: 'claim', targetId: op.payload.claimId, ...(previous ? { previous } : {}) };
    }
    case 'create_link': {
      const id = ctx.nextId();
      yield* insertDependencyProgram({
        id,
        agentId: ctx.agentId,
        sourceEntityId: op.payload.sourceEntityId,
        targetEntityId: op.payload.targetEntityId,
        type: op.payload.type,
        ...(op.payload.strength !== undefined ? { strength: op.payload.strength } : {}),
        ...(op.confidence !== undefined ? { confidence: op.confidence } : {}),
        ...(op.payload.reason ? { reason: op.payload.reason } : {}),
        now: ctx.now,
      });
      return { targetType: 'link', targetId: id };
    }
    case 'update_link': {
      const previous = yield* graphRowSnapshotProgram('link', op.payload.linkId);
      yield* updateDependencyProgram(
        op.payload.linkId,
        { type: op.payload.type ?? null, strength: op.payload.strength ?? null, reason: op.payload.reason ?? null },
        ctx.now,
      );
      return { targetType: 'link', targetId: op.payload.linkId, ...(previous ? { previous } : {}) };
    }
    case 'archive_link': {
      const previous = yield* graphRowSnapshotProgram('link', op.payload.linkId);
      yield* setGraphRowStatusProgram('link', op.payload.linkId, 'archived', ctx.now);
      return { targetType: 'link', targetId: op.payload.linkId, ...(previous ? { previous } : {}) };
    }
    case 'remember_memory': {
      const [created] = yield* createMemoriesProgram(
        target,
        ctx.memoryWrites,
        [
          {
            agentId: ctx.agentId,
            content: prepareContent(op.payload.content),
            type: op.payload.type,
            importance: op.payload.importance ?? 0.5,
            confidence: op.confidence ?? 1,
            source: { type: 'dreaming', id: ctx.passId },
            tags: op.payload.tags,
            audit: memoryAudit(ctx, op),
          },
        ],
        ctx.now,
      );
      if (!created) throw new Error('the memory writer returned nothing');
      return { targetType: 'memory', targetId: created.id, ...(created.deduped ? { deduped: true } : {}) };
    }
    case 'supersede_memory': {
      // The previous row goes to the cold table; the old content's vector, hints and mentions go.
      const row = yield* changeMemoryProgram(
        target,
        ctx.memoryWrites,
        {
          agentId: ctx.agentId,
          id: op.payload.memoryId,
          content: prepareContent(op.payload.content),
          audit: memoryAudit(ctx, op),
        },
        ctx.now,
      );
      return { targetType: 'memory', targetId: row.id };
    }
    case 'archive_memory':
      yield* forgetMemoryProgram(
        target,
        ctx.memoryWrites,
        {
          agentId: ctx.agentId,
          id: op.payload.memoryId,
          force: op.payload.force,
          coldCopy: true,
          audit: memoryAudit(ctx, op),
        },
        ctx.now,
      );
      return { targetType: 'memory', targetId: op.payload.memoryId };
    case 'flag': {
      const id = ctx.nextId();
      yield* openAttentionProgram({
        id,
        agentId: ctx.agentId,
        kind: op.payload.kind,
        subjectRef: op.payload.subjectRef,
        priority: op.payload.priority ?? 50,
        details: op.payload.details,
        createdBy: ctx.actor.id,
        now: ctx.now,
      });
      // An open record for the same subject is kept: the operation points at it.
      const open = yield* findOpenAttentionIdProgram(ctx.agentId, op.payload.kind, op.payload.subjectRef);
      return { targetType: 'attention', targetId: open ?? id };
    }
    case 'decline_attention':
      yield* declineAttentionProgram(op.payload.attentionId, ctx.passId, ctx.now);
      return { targetType: 'attention', targetId: op.payload.attentionId };
    default: {
      const unhandled: never = op;
      throw new Error(`no writer for ${String((unhandled as { operation: unknown }).operation)}`);
    }
  }
}
