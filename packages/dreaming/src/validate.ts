import { contentHash, type MemoryConfig, normalizeForStorage } from '@memory/core';
import {
  activeAspectByNameProgram,
  activeEntityByCanonicalNameProgram,
  aspectEntityIdProgram,
  attentionStateProgram,
  canonicalEntityName,
  countActiveAspectsProgram,
  countActiveClaimsProgram,
  findLiveMemoryIdByHashProgram,
  graphRowStateProgram,
  latestActiveClaimProgram,
  memoryRowStateProgram,
  openAttentionAboutProgram,
  type Program,
  runSqliteProgram,
  type SqlExecutor,
} from '@memory/store';
import { checkCitationsProgram } from './citations.js';
import { type CrossScopeReporter, parseSourceRef } from './evidence.js';
import { CONTENT_OPERATIONS, type DreamingOperation, HYGIENE_OPERATIONS } from './operations.js';

/** Why an operation became a proposal instead of a write. */
export type ProposalRoute = 'shadow' | 'review_required' | 'contradiction';

/**
 * An active claim that `add_claim` would contradict: same aspect and key, different content.
 * (`set_claim` and `supersede_claim` replace on purpose; only a plain add alongside is suspect.)
 */
function* contradictedClaimProgram(op: DreamingOperation): Program<string | undefined> {
  if (op.operation !== 'add_claim') return undefined;
  const row = yield* latestActiveClaimProgram(op.payload.aspectId, op.payload.claimKey);
  if (!row) return undefined;
  const same = row.content.trim().toLowerCase() === op.payload.content.trim().toLowerCase();
  return same ? undefined : row.id;
}

/** What the seam decided for one operation, before anything is written. */
export type OperationDecision =
  | { readonly index: number; readonly status: 'apply'; readonly operation: DreamingOperation }
  | {
      readonly index: number;
      readonly status: 'proposal';
      readonly route: ProposalRoute;
      readonly operation: DreamingOperation;
      readonly conflictsWith?: string;
    }
  | { readonly index: number; readonly status: 'rejected'; readonly reason: string };

type Kind = 'entity' | 'aspect' | 'claim' | 'link' | 'memory';

/**
 * Where a subject lives, as the caller may know it: in the agent's scope (active or not), or not
 * there. A row of another scope is `missing`, exactly like one that exists nowhere, so ids cannot be
 * probed across scopes; `report` tells the operators about the attempt.
 */
function* subjectStateProgram(
  agentId: string,
  kind: Kind,
  id: string,
  report: CrossScopeReporter | undefined,
): Program<'active' | 'inactive' | 'missing'> {
  const row = kind === 'memory' ? yield* memoryRowStateProgram(id) : yield* graphRowStateProgram(kind, id);
  if (!row) return 'missing';
  if (row.agentId !== agentId) {
    report?.({ ref: `${kind}:${id}`, ownerAgentId: row.agentId });
    return 'missing';
  }
  return row.status === 'active' ? 'active' : 'inactive';
}

function* requireActiveProgram(
  agentId: string,
  kind: Kind,
  id: string,
  field: string,
  batch: BatchState,
): Program<string | undefined> {
  const state = yield* subjectStateProgram(agentId, kind, id, batch.report);
  if (state === 'active') return undefined;
  if (state === 'missing') return `${field}: no ${kind} ${id} in this scope; use ids you were shown`;
  return `${field}: ${kind} ${id} is archived or superseded; act on the current one`;
}

/** The subjects a hygiene operation acts on, as `kind:id` references. */
export function hygieneSubjects(op: DreamingOperation): string[] {
  switch (op.operation) {
    case 'archive_entity':
      return [`entity:${op.payload.entityId}`];
    case 'merge_entities':
      return [`entity:${op.payload.sourceEntityId}`, `entity:${op.payload.targetEntityId}`];
    case 'archive_aspect':
      return [`aspect:${op.payload.aspectId}`];
    case 'merge_aspects':
      return [`aspect:${op.payload.sourceAspectId}`, `aspect:${op.payload.targetAspectId}`];
    case 'archive_claim':
      return [`claim:${op.payload.claimId}`];
    case 'archive_link':
      return [`link:${op.payload.linkId}`];
    case 'archive_memory':
      return [`memory:${op.payload.memoryId}`];
    default:
      return [];
  }
}

const SUBJECT = /^(entity|aspect|claim|link|memory):(.{1,200})$/s;

/** Takes one place under a cap, counting what the batch already took; false when full. */
function reserve(taken: Map<string, number>, key: string, existing: number, cap: number): boolean {
  const pending = taken.get(key) ?? 0;
  if (existing + pending >= cap) return false;
  taken.set(key, pending + 1);
  return true;
}

function* hasActiveClaimProgram(aspectId: string, claimKey: string): Program<boolean> {
  return (yield* latestActiveClaimProgram(aspectId, claimKey)) !== undefined;
}

interface BatchState {
  /** Subjects flagged by valid `flag` operations earlier in the batch. */
  readonly flagged: Set<string>;
  /** Canonical entity names created earlier in the batch. */
  readonly newNames: Set<string>;
  readonly newAspects: Map<string, number>;
  readonly newClaims: Map<string, number>;
  /** Hears about references to rows of other scopes (answered as missing). */
  readonly report: CrossScopeReporter | undefined;
  /** A reviewer is accepting a proposal (see {@link decideOperations}). */
  readonly reviewed: boolean;
}

function* checkHygieneProgram(agentId: string, op: DreamingOperation, batch: BatchState): Program<string | undefined> {
  const subjects = hygieneSubjects(op);
  if (subjects.some((s) => batch.flagged.has(s))) return undefined;
  // A reviewer accepting it: the `flag` that came with it in its batch was a proposal of its own, so
  // an attention record open now about the subject is what counts.
  if (batch.reviewed) {
    for (const subject of subjects)
      if ((yield* openAttentionAboutProgram(agentId, subject)).length > 0) return undefined;
  }
  const attention = (op.evidence ?? []).map((c) => parseSourceRef(c.sourceRef)).filter((r) => r?.kind === 'attention');
  if (attention.length === 0) {
    return `${op.operation} removes or folds knowledge: cite the attention record about it ({ sourceRef: "attention:<id>", quote: "" }) or flag ${subjects[0]} earlier in this batch`;
  }
  for (const ref of attention) {
    const state = ref ? yield* attentionStateProgram(ref.id) : undefined;
    if (!state) continue;
    // Another scope's record counts as no record (the same answer as a missing one).
    if (state.agentId !== agentId) {
      batch.report?.({ ref: `attention:${ref?.id}`, ownerAgentId: state.agentId });
      continue;
    }
    if (!state.open) continue;
    if (subjects.includes(state.subjectRef)) return undefined;
  }
  return `none of the cited attention records is open and about ${subjects.join(' or ')}; cite the one whose subject is the target`;
}

function* checkTargetsProgram(
  agentId: string,
  op: DreamingOperation,
  policy: MemoryConfig['dreaming'],
  batch: BatchState,
): Program<string | undefined> {
  switch (op.operation) {
    case 'create_entity': {
      const key = canonicalEntityName(op.payload.name);
      const existing = yield* activeEntityByCanonicalNameProgram(agentId, key);
      if (existing)
        return `entity "${op.payload.name}" already exists as ${existing}; attach to it instead of creating a duplicate`;
      if (batch.newNames.has(key)) return `entity "${op.payload.name}" is created twice in this batch`;
      batch.newNames.add(key);
      return undefined;
    }
    case 'rename_entity': {
      const taken = yield* activeEntityByCanonicalNameProgram(agentId, canonicalEntityName(op.payload.name));
      if (taken && taken !== op.payload.entityId)
        return `another entity (${taken}) is already named "${op.payload.name}"; merge them instead`;
      return yield* requireActiveProgram(agentId, 'entity', op.payload.entityId, 'entityId', batch);
    }
    case 'archive_entity':
      return yield* requireActiveProgram(agentId, 'entity', op.payload.entityId, 'entityId', batch);
    case 'merge_entities':
      if (op.payload.sourceEntityId === op.payload.targetEntityId) return 'merge_entities needs two different entities';
      return (
        (yield* requireActiveProgram(agentId, 'entity', op.payload.sourceEntityId, 'sourceEntityId', batch)) ??
        (yield* requireActiveProgram(agentId, 'entity', op.payload.targetEntityId, 'targetEntityId', batch))
      );
    case 'create_aspect': {
      const missing = yield* requireActiveProgram(agentId, 'entity', op.payload.entityId, 'entityId', batch);
      if (missing) return missing;
      const existing = yield* activeAspectByNameProgram(op.payload.entityId, op.payload.name);
      if (existing)
        return `entity ${op.payload.entityId} already has an aspect "${op.payload.name}" (${existing}); attach claims to it`;
      const key = `${op.payload.entityId}\u0000${canonicalEntityName(op.payload.name)}`;
      if (batch.newNames.has(key)) return `aspect "${op.payload.name}" is created twice in this batch`;
      batch.newNames.add(key);
      if (
        !reserve(
          batch.newAspects,
          op.payload.entityId,
          yield* countActiveAspectsProgram(op.payload.entityId),
          policy.maxAspectsPerEntity,
        )
      ) {
        return `entity ${op.payload.entityId} already has ${policy.maxAspectsPerEntity} aspects; attach to an existing aspect or archive one first`;
      }
      return undefined;
    }
    case 'rename_aspect': {
      const missing = yield* requireActiveProgram(agentId, 'aspect', op.payload.aspectId, 'aspectId', batch);
      if (missing) return missing;
      const entityId = (yield* aspectEntityIdProgram(op.payload.aspectId)) ?? '';
      const taken = yield* activeAspectByNameProgram(entityId, op.payload.name);
      return taken && taken !== op.payload.aspectId
        ? `the entity already has an aspect "${op.payload.name}" (${taken}); merge them instead`
        : undefined;
    }
    case 'archive_aspect':
      return yield* requireActiveProgram(agentId, 'aspect', op.payload.aspectId, 'aspectId', batch);
    case 'merge_aspects':
      if (op.payload.sourceAspectId === op.payload.targetAspectId) return 'merge_aspects needs two different aspects';
      return (
        (yield* requireActiveProgram(agentId, 'aspect', op.payload.sourceAspectId, 'sourceAspectId', batch)) ??
        (yield* requireActiveProgram(agentId, 'aspect', op.payload.targetAspectId, 'targetAspectId', batch))
      );
    case 'add_claim':
    case 'set_claim': {
      const missing = yield* requireActiveProgram(agentId, 'aspect', op.payload.aspectId, 'aspectId', batch);
      if (missing) return missing;
      if (
        op.payload.validFrom !== undefined &&
        op.payload.validUntil !== undefined &&
        op.payload.validUntil <= op.payload.validFrom
      )
        return 'validUntil must be after validFrom';
      // set_claim over an existing key replaces it: the count does not grow.
      if (op.operation === 'set_claim' && (yield* hasActiveClaimProgram(op.payload.aspectId, op.payload.claimKey)))
        return undefined;
      if (
        !reserve(
          batch.newClaims,
          op.payload.aspectId,
          yield* countActiveClaimsProgram(op.payload.aspectId),
          policy.maxClaimsPerAspect,
        )
      ) {
        return `aspect ${op.payload.aspectId} already has ${policy.maxClaimsPerAspect} active claims; supersede one instead of adding alongside`;
      }
      return undefined;
    }
    case 'supersede_claim':
    case 'archive_claim':
      return yield* requireActiveProgram(agentId, 'claim', op.payload.claimId, 'claimId', batch);
    case 'create_link':
      if (op.payload.sourceEntityId === op.payload.targetEntityId) return 'a link needs two different entities';
      return (
        (yield* requireActiveProgram(agentId, 'entity', op.payload.sourceEntityId, 'sourceEntityId', batch)) ??
        (yield* requireActiveProgram(agentId, 'entity', op.payload.targetEntityId, 'targetEntityId', batch))
      );
    case 'update_link':
    case 'archive_link':
      return yield* requireActiveProgram(agentId, 'link', op.payload.linkId, 'linkId', batch);
    case 'remember_memory':
      return undefined;
    case 'supersede_memory':
    case 'archive_memory': {
      if (!policy.allowUpdateDelete)
        return `${op.operation} needs dreaming.allowUpdateDelete, which is off; propose it with risk: "review_required" instead`;
      const missing = yield* requireActiveProgram(agentId, 'memory', op.payload.memoryId, 'memoryId', batch);
      if (missing) return missing;
      if (op.operation === 'supersede_memory') {
        const clash = yield* findLiveMemoryIdByHashProgram(
          agentId,
          contentHash(normalizeForStorage(op.payload.content)),
        );
        if (clash && clash !== op.payload.memoryId)
          return `memory ${clash} already holds this content; archive ${op.payload.memoryId} instead`;
      }
      if (op.operation === 'archive_memory' && op.payload.force !== true) {
        if ((yield* memoryRowStateProgram(op.payload.memoryId))?.pinned === true)
          return `memory ${op.payload.memoryId} is pinned; it is never archived without force: true`;
      }
      return undefined;
    }
    case 'flag': {
      const m = SUBJECT.exec(op.payload.subjectRef);
      if (!m) return 'subjectRef must be entity:<id>, aspect:<id>, claim:<id>, link:<id> or memory:<id>';
      const state = yield* subjectStateProgram(agentId, m[1] as Kind, m[2] as string, batch.report);
      if (state === 'missing') return `subjectRef: no ${op.payload.subjectRef} in this scope`;
      batch.flagged.add(op.payload.subjectRef);
      return undefined;
    }
    case 'decline_attention': {
      const state = yield* attentionStateProgram(op.payload.attentionId);
      if (state && state.agentId !== agentId)
        batch.report?.({ ref: `attention:${op.payload.attentionId}`, ownerAgentId: state.agentId });
      if (!state || state.agentId !== agentId) return `no attention ${op.payload.attentionId} in this scope`;
      if (!state.open) return `attention ${op.payload.attentionId} is already resolved`;
      return undefined;
    }
    default: {
      // Exhaustive: a new operation must say what it checks before it can be accepted.
      const unhandled: never = op;
      return `operation ${String((unhandled as { operation: unknown }).operation)} has no checks`;
    }
  }
}

/**
 * Decides every operation of a batch before anything is written, in batch order (a `flag` or a
 * created name counts for the operations after it). Checks, in order: the confidence floor, the
 * evidence (exact quotes in scope for content operations; an open attention record about the
 * target for hygiene operations), the targets (in scope, active, within caps, policies), then the
 * route: shadow mode, `risk: "review_required"` and an add that contradicts an active claim with
 * the same key become proposals. A reference to a row of another scope is answered like a missing
 * one; `report` hears about it (for the operators' log). `reviewed` (a reviewer accepting a
 * proposal) runs every check but routes nothing to review again: the review is what happened; a
 * hygiene operation then also passes when an attention record about its subject is open now.
 */
export function decideOperations(
  sql: SqlExecutor,
  agentId: string,
  policy: MemoryConfig['dreaming'],
  operations: ReadonlyArray<{ readonly index: number; readonly operation: DreamingOperation }>,
  report?: CrossScopeReporter,
  reviewed = false,
): OperationDecision[] {
  return runSqliteProgram(sql, decideOperationsProgram(agentId, policy, operations, report, reviewed));
}

/** {@link decideOperations} as a program (both dialects). */
export function* decideOperationsProgram(
  agentId: string,
  policy: MemoryConfig['dreaming'],
  operations: ReadonlyArray<{ readonly index: number; readonly operation: DreamingOperation }>,
  report?: CrossScopeReporter,
  reviewed = false,
): Program<OperationDecision[]> {
  const batch: BatchState = {
    flagged: new Set(),
    newNames: new Set(),
    newAspects: new Map(),
    newClaims: new Map(),
    report,
    reviewed,
  };
  const decisions: OperationDecision[] = [];
  for (const { index, operation } of operations) decisions.push(yield* decideOne(index, operation));
  return decisions;

  function* decideOne(index: number, operation: DreamingOperation): Program<OperationDecision> {
    const reject = (reason: string): OperationDecision => ({ index, status: 'rejected', reason });
    if (operation.confidence !== undefined && operation.confidence < policy.minConfidenceForWrite) {
      return reject(
        `confidence ${operation.confidence} is below dreaming.minConfidenceForWrite (${policy.minConfidenceForWrite}); write only settled facts`,
      );
    }
    if (CONTENT_OPERATIONS.has(operation.operation)) {
      const cited = yield* checkCitationsProgram(agentId, operation.evidence ?? [], report);
      if (!cited.ok) return reject(cited.reason);
    } else if (HYGIENE_OPERATIONS.has(operation.operation)) {
      const why = yield* checkHygieneProgram(agentId, operation, batch);
      if (why) return reject(why);
    }
    const why = yield* checkTargetsProgram(agentId, operation, policy, batch);
    if (why) return reject(why);
    if (reviewed) return { index, status: 'apply', operation };
    if (policy.shadowMode) return { index, status: 'proposal', route: 'shadow', operation };
    if (operation.risk === 'review_required') return { index, status: 'proposal', route: 'review_required', operation };
    const conflict = yield* contradictedClaimProgram(operation);
    if (conflict) return { index, status: 'proposal', route: 'contradiction', operation, conflictsWith: conflict };
    return { index, status: 'apply', operation };
  }
}
