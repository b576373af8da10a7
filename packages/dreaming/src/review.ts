import { agentIdSchema, labelSchema, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import {
  decideProposalProgram,
  findProposalProgram,
  type MemoryWriteDeps,
  type PortableStore,
  type Program,
  type Store,
  type WriterTarget,
} from '@memory/store';
import { z } from 'zod';
import { defaultMemoryWrites, writeRecordedProgram } from './apply.js';
import { type OperationName, parseOperations } from './operations.js';
import { runSteps, runStepsSync, writeTx } from './run-steps.js';
import { decideOperationsProgram } from './validate.js';
import type { WriteContext } from './writers.js';

const actorSchema = z.strictObject({ id: labelSchema(200, 'actor.id') });

const acceptSchema = z.strictObject({
  agentId: agentIdSchema,
  proposalId: z.string().min(1).max(200),
  /** Who reviewed it. @default { id: 'operator' } */
  actor: actorSchema.optional(),
  /** A note kept with the decision. */
  reason: z.string().trim().min(1).max(1000).optional(),
});

const rejectSchema = acceptSchema.extend({ reason: z.string().trim().min(1, 'reason must not be empty').max(1000) });

/** `proposals.accept`'s input. */
export type AcceptProposalInput = z.input<typeof acceptSchema>;
/** `proposals.reject`'s input: a reason is required. */
export type RejectProposalInput = z.input<typeof rejectSchema>;

/** What accepting a proposal wrote. */
export interface AcceptResult {
  readonly proposalId: string;
  readonly operation: OperationName;
  readonly targetType: string;
  readonly targetId: string;
  /** remember_memory of content the agent already held: nothing new was written. */
  readonly deduped?: boolean;
}

function notFound(id: string): MemoryError {
  return new MemoryError('NOT_FOUND', `no proposal ${id} in this scope`, { details: { id } });
}

/**
 * Applies a pending proposal through the seam, in one transaction: the operation is checked again
 * against the evidence and graph as they are now (exact quotes still in the agent's evidence,
 * targets active, caps, policies; a proposal whose quote was forgotten is refused with `CONFLICT`
 * and stays pending), written with provenance pointing at the proposal, and the proposal is marked
 * accepted by the reviewer (its contradiction resolved). `NOT_FOUND` outside the scope; `CONFLICT`
 * when it is not pending or `dreaming.mutationsFrozen` is on.
 */
export function acceptProposal(
  store: Store,
  config: MemoryConfig,
  input: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): AcceptResult {
  const request = acceptRequest(config, input);
  return runStepsSync(
    store,
    writeTx((target) => acceptProgram(target, store, config, request, memoryWrites)),
  );
}

/** {@link acceptProposal} on a store of either dialect (one SERIALIZABLE transaction on PostgreSQL). */
export async function acceptProposalOn(
  store: PortableStore,
  config: MemoryConfig,
  input: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): Promise<AcceptResult> {
  const request = acceptRequest(config, input);
  // Accepting may write memories: it takes its turn with the scope's other memory writers.
  return runSteps(
    store,
    writeTx((target) => acceptProgram(target, store, config, request, memoryWrites)),
    { agentIds: [request.agentId] },
  );
}

function acceptRequest(config: MemoryConfig, input: unknown): z.output<typeof acceptSchema> {
  const request = parseInput(acceptSchema, input, 'dreaming.proposals.accept');
  if (config.dreaming.mutationsFrozen)
    throw new MemoryError('CONFLICT', 'dreaming.mutationsFrozen is on: nothing is written');
  return request;
}

function* acceptProgram(
  target: WriterTarget,
  store: PortableStore,
  config: MemoryConfig,
  request: z.output<typeof acceptSchema>,
  memoryWrites: MemoryWriteDeps,
): Program<AcceptResult> {
  const actor = request.actor?.id ?? 'operator';
  const proposal = yield* findProposalProgram(request.agentId, request.proposalId);
  if (!proposal) throw notFound(request.proposalId);
  if (proposal.status !== 'pending')
    throw new MemoryError('CONFLICT', `proposal ${proposal.id} is already ${proposal.status}`, {
      details: { id: proposal.id, status: proposal.status },
    });
  const parsed = parseOperations([JSON.parse(proposal.operationJson) as unknown]);
  const valid = parsed.ok ? parsed.valid : [];
  const refused = (reason: string) =>
    new MemoryError('CONFLICT', `proposal ${proposal.id} cannot be applied now: ${reason}`, {
      details: { id: proposal.id, reason },
    });
  if (!parsed.ok || valid.length === 0)
    throw refused(parsed.ok ? (parsed.rejected[0]?.reason ?? 'not an operation') : parsed.reason);
  const [decision] = yield* decideOperationsProgram(request.agentId, config.dreaming, valid, undefined, true);
  if (!decision || decision.status === 'rejected') throw refused(decision?.reason ?? 'no decision');
  if (decision.status !== 'apply') throw refused('it was routed to review again');
  const now = store.clock.now();
  const ctx: WriteContext = {
    agentId: request.agentId,
    passId: proposal.passId,
    actor: { id: actor, type: 'operator' },
    now,
    nextId: () => store.ids.next(),
    memoryWrites,
  };
  const outcome = yield* writeRecordedProgram(target, ctx, decision.operation, proposal.id);
  yield* decideProposalProgram({
    agentId: request.agentId,
    id: proposal.id,
    status: 'accepted',
    by: actor,
    reason: request.reason ?? null,
    now,
  });
  return {
    proposalId: proposal.id,
    operation: decision.operation.operation,
    targetType: outcome.targetType,
    targetId: outcome.targetId,
    ...(outcome.deduped ? { deduped: true } : {}),
  };
}

/**
 * Rejects a pending proposal with a reason (kept with who decided and when); nothing else is
 * written and its contradiction is resolved. `NOT_FOUND` outside the scope; `CONFLICT` when it is
 * not pending.
 */
export function rejectProposal(store: Store, input: unknown): { proposalId: string } {
  const request = parseInput(rejectSchema, input, 'dreaming.proposals.reject');
  return runStepsSync(
    store,
    writeTx(() => rejectProgram(store, request)),
  );
}

/** {@link rejectProposal} on a store of either dialect. */
export async function rejectProposalOn(store: PortableStore, input: unknown): Promise<{ proposalId: string }> {
  const request = parseInput(rejectSchema, input, 'dreaming.proposals.reject');
  // Rejecting changes no memory: no scope lock.
  return runSteps(
    store,
    writeTx(() => rejectProgram(store, request)),
    { agentIds: [] },
  );
}

function* rejectProgram(store: PortableStore, request: z.output<typeof rejectSchema>): Program<{ proposalId: string }> {
  const proposal = yield* findProposalProgram(request.agentId, request.proposalId);
  if (!proposal) throw notFound(request.proposalId);
  const decided = yield* decideProposalProgram({
    agentId: request.agentId,
    id: proposal.id,
    status: 'rejected',
    by: request.actor?.id ?? 'operator',
    reason: request.reason,
    now: store.clock.now(),
  });
  if (!decided)
    throw new MemoryError('CONFLICT', `proposal ${proposal.id} is already ${proposal.status}`, {
      details: { id: proposal.id, status: proposal.status },
    });
  return { proposalId: proposal.id };
}
