import { agentIdSchema, labelSchema, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import {
  insertContradictionProgram,
  insertProposalProgram,
  insertProvenanceProgram,
  isSqliteStore,
  type MemoryWriteDeps,
  type PortableStore,
  type Program,
  resolveAttentionAboutProgram,
  type Store,
  type WriterTarget,
  withSavepoint,
} from '@memory/store';
import { z } from 'zod';
import type { CrossScopeReference } from './evidence.js';
import { captureChangesProgram, type RowChange } from './footprint.js';
import { type DreamingOperation, HYGIENE_OPERATIONS, type OperationName, parseOperations } from './operations.js';
import { readTx, runSteps, runStepsSync, type Steps, writeTx } from './run-steps.js';
import { decideOperationsProgram, hygieneSubjects, type OperationDecision, type ProposalRoute } from './validate.js';
import { type WriteContext, type WriteOutcome, writeOperationProgram } from './writers.js';

const contextSchema = z.strictObject({
  agentId: agentIdSchema,
  /** The Dreaming pass these operations belong to (recorded with every row). */
  passId: labelSchema(200, 'passId').optional(),
  /** Who is applying: a pass's agent by default. */
  actor: z.strictObject({ id: labelSchema(200, 'actor.id'), type: z.enum(['operator', 'agent', 'engine']) }).optional(),
});

export type ApplyContext = z.input<typeof contextSchema>;

export interface ApplyResult {
  /** Operations written, with what they created or changed. */
  readonly applied: ReadonlyArray<{ readonly index: number; readonly operation: OperationName } & WriteOutcome>;
  /** Operations refused, with a reason written for the model. Nothing of them was written. */
  readonly rejected: ReadonlyArray<{ readonly index: number; readonly reason: string }>;
  /** Operations recorded for review instead of applied (shadow mode, `risk: "review_required"`). */
  readonly proposals: ReadonlyArray<{ readonly index: number; readonly id: string; readonly route: ProposalRoute }>;
  /** Set when writing failed part-way: operations from this index on were not applied; resend them. */
  readonly retryFrom?: number;
}

function* recordProvenanceProgram(
  ctx: WriteContext,
  op: DreamingOperation,
  outcome: WriteOutcome,
  changes: readonly RowChange[],
  proposalId: string | null,
): Program<void> {
  yield* insertProvenanceProgram({
    agentId: ctx.agentId,
    passId: ctx.passId,
    actor: ctx.actor.id,
    operation: op.operation,
    targetType: outcome.targetType,
    targetId: outcome.targetId,
    evidenceJson: JSON.stringify(op.evidence ?? []),
    confidence: op.confidence ?? null,
    previousJson: outcome.previous ? JSON.stringify(outcome.previous) : null,
    changesJson: JSON.stringify(changes),
    proposalId,
    now: ctx.now,
  });
}

/**
 * Writes one decided operation inside the caller's transaction with its provenance: the images of
 * every row it wrote, before and after (what a revert restores), and for hygiene the attention it
 * resolved. Shared by the batch apply and a reviewer's accept.
 */
export function* writeRecordedProgram(
  target: WriterTarget,
  ctx: WriteContext,
  op: DreamingOperation,
  proposalId: string | null = null,
): Program<WriteOutcome> {
  const capture = yield* captureChangesProgram(ctx.agentId, op);
  const result = yield* writeOperationProgram(target, ctx, op);
  // Hygiene acted on its subjects: their open attention records are resolved by this pass.
  if (HYGIENE_OPERATIONS.has(op.operation))
    for (const subject of hygieneSubjects(op))
      yield* resolveAttentionAboutProgram(ctx.agentId, subject, ctx.passId, ctx.now);
  yield* recordProvenanceProgram(ctx, op, result, yield* capture.finish(result), proposalId);
  return result;
}

/** Memories an apply wrote or changed (not archived, not deduplicated): they need vectors. */
export function writtenMemoryIds(result: ApplyResult): string[] {
  return result.applied
    .filter((a) => a.targetType === 'memory' && a.deduped !== true && a.operation !== 'archive_memory')
    .map((a) => a.targetId);
}

/**
 * The operators' record of references to another scope's rows. The caller was answered as if the
 * row did not exist (no existence oracle); a log line keeps the attempt visible to whoever runs
 * the host, with both scopes named. Logged after the read that found them (it may run again).
 */
function logCrossScope(store: PortableStore, ctx: WriteContext, references: readonly CrossScopeReference[]): void {
  for (const { ref, ownerAgentId } of references)
    store.logger.warn('dreaming.apply referenced a row of another agent scope; answered as missing', {
      agentId: ctx.agentId,
      passId: ctx.passId,
      actor: ctx.actor.id,
      ref,
      ownerAgentId,
    });
}

/**
 * The memory writer's dependencies when the host gives none: no derived work is queued (the engine
 * passes its own, which queues prospective hints).
 */
export function defaultMemoryWrites(store: PortableStore, config: MemoryConfig): MemoryWriteDeps {
  return {
    ids: store.ids,
    // The vec0 mirror exists only on SQLite; PostgreSQL keeps vectors in `embeddings` alone.
    vectorAvailable: isSqliteStore(store) ? store.vector.available : false,
    inlineEntityLinking: config.remember.inlineEntityLinking,
  };
}

type Applied = { index: number; operation: OperationName } & WriteOutcome;

/** Records the proposals of a batch (and the contradictions they carry); returns them in batch order. */
function* proposeProgram(
  ctx: WriteContext,
  toPropose: ReadonlyArray<Extract<OperationDecision, { status: 'proposal' }>>,
): Program<Array<{ index: number; id: string; route: ProposalRoute }>> {
  const proposals: Array<{ index: number; id: string; route: ProposalRoute }> = [];
  for (const d of toPropose) {
    const id = ctx.nextId();
    yield* insertProposalProgram({
      id,
      agentId: ctx.agentId,
      passId: ctx.passId,
      actor: ctx.actor.id,
      operation: d.operation.operation,
      operationJson: JSON.stringify(d.operation),
      route: d.route,
      reason: d.operation.reason ?? null,
      now: ctx.now,
    });
    if (d.conflictsWith) {
      yield* insertContradictionProgram({
        id: ctx.nextId(),
        agentId: ctx.agentId,
        claimId: d.conflictsWith,
        proposalId: id,
        details: JSON.stringify({ operation: d.operation.operation, payload: d.operation.payload }),
        now: ctx.now,
      });
    }
    proposals.push({ index: d.index, id, route: d.route });
  }
  return proposals;
}

/**
 * Writes one chunk of accepted operations in one transaction, each under its own savepoint: the
 * first that fails is rolled back alone and stops the chunk (what came before it stays).
 */
function* writeChunkProgram(
  target: WriterTarget,
  ctx: WriteContext,
  chunk: ReadonlyArray<Extract<OperationDecision, { status: 'apply' }>>,
): Program<{ applied: Applied[]; failed?: { index: number; operation: OperationName; error: unknown } }> {
  const applied: Applied[] = [];
  for (const d of chunk) {
    const outcome = yield* withSavepoint('dreaming_operation', () => writeRecordedProgram(target, ctx, d.operation));
    if (!outcome.ok)
      return { applied, failed: { index: d.index, operation: d.operation.operation, error: outcome.error } };
    const { previous: _previous, ...visible } = outcome.value;
    applied.push({ index: d.index, operation: d.operation.operation, ...visible });
  }
  return { applied };
}

/** The batch apply as transactions (see {@link applyDreamingOperations}). */
function* applySteps(
  store: PortableStore,
  config: MemoryConfig,
  context: unknown,
  operations: unknown,
  memoryWrites: MemoryWriteDeps,
): Steps<ApplyResult> {
  const ctxInput = parseInput(contextSchema, context, 'dreaming.apply');
  const policy = config.dreaming;
  const parsed = parseOperations(operations);
  if (!parsed.ok) throw new MemoryError('INVALID_INPUT', `invalid input to dreaming.apply: ${parsed.reason}`);
  if (policy.mutationsFrozen) {
    const count = Array.isArray(operations) ? operations.length : 0;
    return {
      applied: [],
      rejected: Array.from({ length: count }, (_, index) => ({
        index,
        reason: 'dreaming.mutationsFrozen is on: nothing is written',
      })),
      proposals: [],
    };
  }
  const ctx: WriteContext = {
    agentId: ctxInput.agentId,
    passId: ctxInput.passId ?? null,
    actor: ctxInput.actor ?? { id: 'dreaming', type: 'agent' },
    now: store.clock.now(),
    nextId: () => store.ids.next(),
    memoryWrites,
  };
  const { decisions, references } = yield* readTx(function* () {
    const references: CrossScopeReference[] = [];
    const decisions = yield* decideOperationsProgram(ctx.agentId, policy, parsed.valid, (r) => references.push(r));
    return { decisions, references };
  });
  logCrossScope(store, ctx, references);
  const rejected = [
    ...parsed.rejected,
    ...decisions.flatMap((d) => (d.status === 'rejected' ? [{ index: d.index, reason: d.reason }] : [])),
  ].sort((a, b) => a.index - b.index);

  const toPropose = decisions.flatMap((d) => (d.status === 'proposal' ? [d] : []));
  const proposals = toPropose.length > 0 ? yield* writeTx(() => proposeProgram(ctx, toPropose)) : [];

  const applied: Applied[] = [];
  const accepted = decisions.flatMap((d) => (d.status === 'apply' ? [d] : []));
  for (let start = 0; start < accepted.length; start += policy.operationsPerTransaction) {
    const chunk = accepted.slice(start, start + policy.operationsPerTransaction);
    const written = yield* writeTx((target) => writeChunkProgram(target, ctx, chunk));
    applied.push(...written.applied);
    if (written.failed) {
      const { index, operation, error } = written.failed;
      store.logger.warn('dreaming operation failed; stopping the batch', {
        index,
        operation,
        error: error instanceof Error ? error.message : String(error),
      });
      return { applied, rejected, proposals, retryFrom: index };
    }
  }
  return { applied, rejected, proposals };
}

/**
 * The only writer of semantic memory. The whole batch is parsed and decided before anything is
 * written (see {@link decideOperations}); proposals are recorded; then accepted operations are
 * written in order, at most `dreaming.operationsPerTransaction` per transaction, each in its own
 * savepoint, each with a provenance row (and memory history for memory operations). A failure
 * part-way stops there and returns `retryFrom`. Invalid operations come back in `rejected`, never
 * as a thrown error; only a malformed batch or context throws `INVALID_INPUT`. Synchronous, on a
 * SQLite store; {@link applyDreamingOperationsOn} is the same on either dialect.
 */
export function applyDreamingOperations(
  store: Store,
  config: MemoryConfig,
  context: unknown,
  operations: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): ApplyResult {
  return runStepsSync(store, applySteps(store, config, context, operations, memoryWrites));
}

/**
 * {@link applyDreamingOperations} on a store of either dialect. On PostgreSQL each transaction is
 * SERIALIZABLE and is run again from the start on a serialization failure; the LLM is never called
 * inside one (a write's program cannot await anything but its statements).
 */
export async function applyDreamingOperationsOn(
  store: PortableStore,
  config: MemoryConfig,
  context: unknown,
  operations: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): Promise<ApplyResult> {
  // The seam may write memories: it takes its turn with the scope's other memory writers.
  const { agentId } = parseInput(contextSchema, context, 'dreaming.apply');
  return runSteps(store, applySteps(store, config, context, operations, memoryWrites), { agentIds: [agentId] });
}
