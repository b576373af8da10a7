import { agentIdSchema, labelSchema, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import {
  insertContradiction,
  insertProposal,
  insertProvenance,
  type MemoryWriteDeps,
  resolveAttentionAbout,
  type SqlExecutor,
  type Store,
} from '@memory/store';
import { z } from 'zod';
import type { CrossScopeReporter } from './evidence.js';
import { captureChanges, type RowChange } from './footprint.js';
import { type DreamingOperation, HYGIENE_OPERATIONS, type OperationName, parseOperations } from './operations.js';
import { decideOperations, hygieneSubjects, type ProposalRoute } from './validate.js';
import { type WriteContext, type WriteOutcome, writeOperation } from './writers.js';

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

function recordProvenance(
  sql: SqlExecutor,
  ctx: WriteContext,
  op: DreamingOperation,
  outcome: WriteOutcome,
  changes: readonly RowChange[],
  proposalId: string | null,
): void {
  insertProvenance(sql, {
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
 * Writes one decided operation inside the caller's savepoint with its provenance: the images of
 * every row it wrote, before and after (what a revert restores), and for hygiene the attention it
 * resolved. Shared by the batch apply and a reviewer's accept.
 */
export function writeRecorded(
  sql: SqlExecutor,
  ctx: WriteContext,
  op: DreamingOperation,
  proposalId: string | null = null,
): WriteOutcome {
  const capture = captureChanges(sql, ctx.agentId, op);
  const result = writeOperation(sql, ctx, op);
  if (HYGIENE_OPERATIONS.has(op.operation)) resolveAttention(sql, ctx, hygieneSubjects(op));
  recordProvenance(sql, ctx, op, result, capture.finish(result), proposalId);
  return result;
}

/** Memories an apply wrote or changed (not archived, not deduplicated): they need vectors. */
export function writtenMemoryIds(result: ApplyResult): string[] {
  return result.applied
    .filter((a) => a.targetType === 'memory' && a.deduped !== true && a.operation !== 'archive_memory')
    .map((a) => a.targetId);
}

/** Hygiene acted on its subjects: their open attention records are resolved by this pass. */
function resolveAttention(sql: SqlExecutor, ctx: WriteContext, subjects: readonly string[]): void {
  for (const subject of subjects) resolveAttentionAbout(sql, ctx.agentId, subject, ctx.passId, ctx.now);
}

/**
 * The operators' record of a reference to another scope's row. The caller was answered as if the
 * row did not exist (no existence oracle); a log line keeps the attempt visible to whoever runs
 * the host, with both scopes named.
 */
function crossScopeLog(store: Store, ctx: WriteContext): CrossScopeReporter {
  return ({ ref, ownerAgentId }) =>
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
export function defaultMemoryWrites(store: Store, config: MemoryConfig): MemoryWriteDeps {
  return {
    ids: store.ids,
    vectorAvailable: store.vector.available,
    inlineEntityLinking: config.remember.inlineEntityLinking,
  };
}

/**
 * The only writer of semantic memory. The whole batch is parsed and decided before anything is
 * written (see {@link decideOperations}); proposals are recorded; then accepted operations are
 * written in order, at most `dreaming.operationsPerTransaction` per transaction, each in its own
 * savepoint, each with a provenance row (and memory history for memory operations). A failure
 * part-way stops there and returns `retryFrom`. Invalid operations come back in `rejected`, never
 * as a thrown error; only a malformed batch or context throws `INVALID_INPUT`.
 */
export function applyDreamingOperations(
  store: Store,
  config: MemoryConfig,
  context: unknown,
  operations: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): ApplyResult {
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
  const decisions = store.read((sql) =>
    decideOperations(sql, ctx.agentId, policy, parsed.valid, crossScopeLog(store, ctx)),
  );
  const rejected = [
    ...parsed.rejected,
    ...decisions.flatMap((d) => (d.status === 'rejected' ? [{ index: d.index, reason: d.reason }] : [])),
  ].sort((a, b) => a.index - b.index);

  const proposals: Array<{ index: number; id: string; route: ProposalRoute }> = [];
  const toPropose = decisions.flatMap((d) => (d.status === 'proposal' ? [d] : []));
  if (toPropose.length > 0) {
    store.write((sql) => {
      for (const d of toPropose) {
        const id = ctx.nextId();
        insertProposal(sql, {
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
          insertContradiction(sql, {
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
    });
  }

  const applied: Array<{ index: number; operation: OperationName } & WriteOutcome> = [];
  const accepted = decisions.flatMap((d) => (d.status === 'apply' ? [d] : []));
  let retryFrom: number | undefined;
  for (let start = 0; start < accepted.length && retryFrom === undefined; start += policy.operationsPerTransaction) {
    const chunk = accepted.slice(start, start + policy.operationsPerTransaction);
    store.write(() => {
      for (const d of chunk) {
        try {
          const outcome = store.write((inner) => writeRecorded(inner, ctx, d.operation));
          const { previous: _previous, ...visible } = outcome;
          applied.push({ index: d.index, operation: d.operation.operation, ...visible });
        } catch (error) {
          store.logger.warn('dreaming operation failed; stopping the batch', {
            index: d.index,
            operation: d.operation.operation,
            error: error instanceof Error ? error.message : String(error),
          });
          retryFrom = d.index;
          return;
        }
      }
    });
  }
  return { applied, rejected, proposals, ...(retryFrom !== undefined ? { retryFrom } : {}) };
}
