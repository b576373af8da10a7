import { agentIdSchema, MemoryError, parseInput } from '@memory/core';
import {
  type AcceptResult,
  acceptProposalOn,
  type DreamingOperation,
  type RevertResult,
  rejectProposalOn,
  revertPassOn,
} from '@memory/dreaming';
import { embedStoredMemories } from '@memory/ingest';
import { findProposalProgram, listProposalsProgram, type ProposalView } from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import { json, TIME_ID_CURSOR } from './dreaming-reads.js';
import { decodeCursor, type Page, pageSchema, toPage } from './paging.js';

// Steering what Dreaming concluded: the review queue's decisions and a pass's revert.

/** A proposal in the review queue, with the operation it would apply. */
export interface Proposal {
  readonly id: string;
  readonly passId: string | null;
  readonly actor: string;
  readonly route: ProposalView['route'];
  readonly operation: DreamingOperation;
  readonly reason: string | null;
  readonly status: ProposalView['status'];
  readonly createdAt: number;
  readonly decidedAt: number | null;
  readonly decidedBy: string | null;
  readonly decisionReason: string | null;
  /** For route `contradiction`: the active claim it disagrees with, and whether that is still open. */
  readonly contradiction: {
    readonly id: string;
    readonly claimId: string;
    readonly status: 'open' | 'resolved';
  } | null;
}

const scoped = { agentId: agentIdSchema };
const listProposalsSchema = z.strictObject({
  ...scoped,
  /** @default 'pending' */
  status: z.enum(['pending', 'accepted', 'rejected', 'all']).optional(),
  route: z.enum(['shadow', 'review_required', 'contradiction']).optional(),
  ...pageSchema(200),
});
const proposalSchema = z.strictObject({ ...scoped, proposalId: z.string().min(1).max(200) });

export type ListProposalsInput = z.input<typeof listProposalsSchema>;
export type ProposalRef = z.input<typeof proposalSchema>;

function proposalView(row: ProposalView): Proposal {
  return {
    id: row.id,
    passId: row.passId,
    actor: row.actor,
    route: row.route,
    operation: json(row.operationJson, {} as DreamingOperation),
    reason: row.reason,
    status: row.status,
    createdAt: row.createdAt,
    decidedAt: row.decidedAt,
    decidedBy: row.decidedBy,
    decisionReason: row.decisionReason,
    contradiction:
      row.contradictionId !== null && row.contradictedClaimId !== null && row.contradictionStatus !== null
        ? { id: row.contradictionId, claimId: row.contradictedClaimId, status: row.contradictionStatus }
        : null,
  };
}

/** The review queue: the agent's proposals, oldest first. */
export async function listProposalPage(ctx: EngineContext, input: unknown): Promise<Page<Proposal>> {
  const request = parseInput(listProposalsSchema, input, 'dreaming.proposals.list');
  const limit = request.limit ?? 50;
  const after = decodeCursor(request.cursor, TIME_ID_CURSOR, 'dreaming.proposals.list');
  const status = request.status ?? 'pending';
  const rows = await ctx.portable.db.read(() =>
    listProposalsProgram(
      request.agentId,
      { status: status === 'all' ? null : status, route: request.route ?? null },
      after ? { createdAt: after[0], id: after[1] } : null,
      limit + 1,
    ),
  );
  return toPage(rows, limit, (r) => [r.createdAt, r.id], proposalView);
}

/** One proposal, or undefined outside the scope. */
export async function getProposal(ctx: EngineContext, input: unknown): Promise<Proposal | undefined> {
  const { agentId, proposalId } = parseInput(proposalSchema, input, 'dreaming.proposals.get');
  const row = await ctx.portable.db.read(() => findProposalProgram(agentId, proposalId));
  return row ? proposalView(row) : undefined;
}

/** Accepts a proposal through the seam; a memory it wrote gets its vector afterwards. */
export async function accept(ctx: EngineContext, input: unknown): Promise<AcceptResult> {
  const result = await acceptProposalOn(ctx.portable, ctx.config, input, ctx.memoryWrites);
  if (result.targetType === 'memory' && result.deduped !== true && result.operation !== 'archive_memory')
    await embedStoredMemories(ctx.writer, (input as { agentId: string }).agentId, [result.targetId]);
  return result;
}

/** Rejects a proposal with a reason. */
export function reject(ctx: EngineContext, input: unknown): Promise<{ proposalId: string }> {
  return rejectProposalOn(ctx.portable, input);
}

/** Previews or applies a pass's revert; memories whose content came back get vectors afterwards. */
export async function revert(ctx: EngineContext, input: unknown): Promise<RevertResult> {
  let result: RevertResult;
  try {
    result = await revertPassOn(ctx.portable, ctx.config, input, ctx.memoryWrites);
  } catch (error) {
    // A row that cannot go back because another took its place (a unique name) is a conflict too:
    // SQLite's SQLITE_CONSTRAINT_*, PostgreSQL's SQLSTATE class 23.
    const details = (error as MemoryError | undefined)?.details;
    const code = details?.sqliteCode;
    const state = details?.sqlState;
    if (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT'))
      throw new MemoryError('CONFLICT', 'the revert clashes with rows written since the pass; nothing was changed', {
        cause: error,
        details: { sqliteCode: code },
      });
    if (typeof state === 'string' && state.startsWith('23'))
      throw new MemoryError('CONFLICT', 'the revert clashes with rows written since the pass; nothing was changed', {
        cause: error,
        details: { sqlState: state },
      });
    throw error;
  }
  if (result.memoryIds.length > 0)
    await embedStoredMemories(ctx.writer, (input as { agentId: string }).agentId, result.memoryIds);
  return result;
}
