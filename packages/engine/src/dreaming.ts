import {
  agentIdSchema,
  invalidInput,
  type LlmProvider,
  type MemoryConfig,
  MemoryError,
  parseInput,
  throwIfAborted,
} from '@memory/core';
import {
  type AcceptProposalInput,
  type AcceptResult,
  type ApplyContext,
  type ApplyResult,
  applyDreamingOperationsOn,
  createDreamingSchedule,
  type MemoryHead,
  type PassInput,
  type PassResult,
  type RejectProposalInput,
  type RevertInput,
  type RevertResult,
  readMemoryHeadProgram,
  runDreamingPass,
  writtenMemoryIds,
} from '@memory/dreaming';
import { embedStoredMemories, type MemoryWriter } from '@memory/ingest';
import type { PortableQueue, Queue } from '@memory/queue';
import { PROSPECTIVE_INDEX_JOB, type Recall } from '@memory/recall';
import type { ClaimAsOf, MemoryWriteDeps, PortableStore } from '@memory/store';
import { z } from 'zod';
import { type Abortable, takeSignal } from './abort.js';
import type { Background } from './background.js';
import type { EngineContext } from './context.js';
import type {
  AttentionView,
  ListAttentionInput,
  ListPassesInput,
  PassDetail,
  PassRef,
  PassSummary,
  ProvenanceEntry,
  ProvenanceInput,
} from './dreaming-reads.js';
import type { ListProposalsInput, Proposal, ProposalRef } from './dreaming-steering.js';
import { claimsAt as graphClaimsAt } from './graph.js';
import type { Page } from './paging.js';

/** `dreaming.apply`'s input: who applies (agent scope, pass, actor) and the operations. */
export type DreamingApplyInput = ApplyContext & {
  /** The operations, validated as a batch by the seam. */
  readonly operations: unknown;
};

/** The claims about an entity that were true at `asOf`. */
export interface ClaimsAsOfInput {
  readonly agentId: string;
  readonly entityId: string;
  readonly asOf: number | string;
}

/** Dreaming: the audited write seam, bi-temporal claims, and passes of the bounded agent. */
export interface EngineDreaming {
  /**
   * Applies operations through the seam: the whole batch is validated first (exact quotes from the
   * agent's own evidence, attention-backed hygiene, targets in scope, caps, policies); invalid ones
   * come back in `rejected` with a reason; shadow-mode and review-required ones become proposals.
   */
  apply(input: DreamingApplyInput): Promise<ApplyResult>;
  /** The claims about an entity that were true at `asOf` (event time); superseded ones included when they applied then. */
  claimsAsOf(input: ClaimsAsOfInput): Promise<ClaimAsOf[]>;
  /** Recorded passes: what each was asked, what it did, and why it stopped. */
  readonly passes: {
    /** The agent's passes, newest first, keyset-paged (`limit` default 50, at most 200). */
    list(input: ListPassesInput): Promise<Page<PassSummary>>;
    /** One pass with its evidence window and tool calls; undefined outside the scope. */
    get(input: PassRef): Promise<PassDetail | undefined>;
  };
  /** Every applied operation that named a target (entity, aspect, claim, link, memory, attention), oldest first. */
  provenance(input: ProvenanceInput): Promise<Page<ProvenanceEntry>>;
  /** Attention records (what passes should look at), newest first: open (default), resolved or all. */
  attention(input: ListAttentionInput): Promise<Page<AttentionView>>;
  /** The review queue: shadow-mode writes, review-required operations and contradictions. */
  readonly proposals: {
    /** Proposals oldest first; `status` default `pending`. */
    list(input: ListProposalsInput): Promise<Page<Proposal>>;
    get(input: ProposalRef): Promise<Proposal | undefined>;
    /**
     * Applies a pending proposal through the seam, checked against the evidence and graph as they
     * are now: a proposal whose quote is gone (its evidence forgotten) is refused with `CONFLICT`
     * and stays pending. Recorded with the reviewer (`actor.id`, default `operator`).
     */
    accept(input: AcceptProposalInput): Promise<AcceptResult>;
    /** Rejects a pending proposal; the reason is kept with the reviewer and the time. */
    reject(input: RejectProposalInput): Promise<{ proposalId: string }>;
  };
  /**
   * Takes back everything a pass wrote, newest first, as one audited operation: rows it created are
   * deleted (memories forgotten), rows it changed are restored as its provenance recorded them. A
   * preview unless `apply: true`; a row changed since the pass is a conflict and the revert is
   * refused (`CONFLICT`) until it is resolved.
   */
  revert(input: RevertInput): Promise<RevertResult>;
  /**
   * Runs one Dreaming pass for an agent now (needs an `llm`): the mode is chosen from the work
   * unless given; everything it does is recorded. With `dreaming.enabled`, the engine's schedule
   * also runs passes when an agent has work. An aborted `signal` stops the pass at its next model
   * turn (recorded as failed) and the call rejects; memories it wrote before stopping are kept.
   */
  runPass(input: PassInput & Abortable): Promise<PassResult>;
}

/** Due hints jobs above which scheduled Dreaming passes wait (both need the LLM). */
const DREAMING_DEFER_BACKLOG = 100;

const scopeSchema = z.strictObject({ agentId: agentIdSchema });

/**
 * Applies operations through the seam. The seam never calls providers; memories it wrote get their
 * vectors afterwards.
 */
export async function applyOperations(ctx: EngineContext, input: unknown): Promise<ApplyResult> {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidInput('dreaming.apply', [{ path: [], message: 'dreaming.apply needs { agentId, operations }' }]);
  const { operations, ...context } = input as { operations?: unknown };
  const result = await applyDreamingOperationsOn(ctx.portable, ctx.config, context, operations, ctx.memoryWrites);
  // The seam parsed the context, so its agentId is valid here.
  await embedStoredMemories(ctx.writer, (context as { agentId: string }).agentId, writtenMemoryIds(result));
  return result;
}

/**
 * Runs one pass under the shared LLM limit, like every other caller of the model. The signal is
 * checked before queueing for the limit, again once a slot is free (before the first model call),
 * and after the pass (which also sees it between model turns); an aborted pass gets no vectors.
 */
export async function runPass(ctx: EngineContext, input: unknown): Promise<PassResult> {
  const operation = 'dreaming.runPass';
  const { signal, rest } = takeSignal(input, operation);
  const llm = ctx.llm;
  if (!llm)
    throw new MemoryError('INVALID_CONFIG', 'dreaming.runPass needs an llm provider in createMemoryEngine options');
  throwIfAborted(signal, operation);
  const pass = await ctx.background.admission.llm.add(() => {
    throwIfAborted(signal, operation);
    return runDreamingPass(
      {
        store: ctx.portable,
        config: ctx.config,
        llm,
        clock: ctx.portable.clock,
        memoryWrites: ctx.memoryWrites,
        recall: ctx.evidenceRecall,
        ...(signal ? { signal } : {}),
      },
      rest,
    );
  });
  throwIfAborted(signal, operation);
  // The pass parsed the input, so its agentId is valid here.
  await embedStoredMemories(ctx.writer, (rest as { agentId: string }).agentId, pass.memoryIds);
  return pass;
}

/** The claims about an entity that were true at `asOf` (event time). */
export function claimsAt(ctx: EngineContext, input: unknown): Promise<ClaimAsOf[]> {
  return graphClaimsAt(ctx, input, 'dreaming.claimsAsOf');
}

/** The agent's MEMORY.md head, or undefined until a content pass writes one. */
export function memoryHead(ctx: EngineContext, input: unknown): Promise<MemoryHead | undefined> {
  const { agentId } = parseInput(scopeSchema, input, 'memoryHead');
  return ctx.portable.db.read(() => readMemoryHeadProgram(agentId));
}

/**
 * Scheduled Dreaming passes, run under the shared LLM limit. A check defers its passes while the
 * limit is saturated: LLM calls are queued or every slot is busy, or the hints backlog (the other
 * LLM work on the queue) is long. The backlog is counted at most once per clock tick.
 */
export function createScheduledDreaming(deps: {
  readonly store: PortableStore;
  readonly config: MemoryConfig;
  /** The SQLite queue's synchronous API (undefined on PostgreSQL: `jobs` is counted before each check). */
  readonly queue: Queue | undefined;
  readonly jobs: PortableQueue;
  readonly llm: LlmProvider;
  readonly writer: MemoryWriter;
  readonly memoryWrites: MemoryWriteDeps;
  readonly recall: Recall;
  readonly background: Background;
}) {
  const { store, config, queue, jobs, llm, writer, background } = deps;
  const limit = background.admission.llm;
  let backlog = { at: Number.NaN, due: 0 };
  const dueHints = (health: ReadonlyArray<{ jobType: string; due: number }>): number =>
    health.find((h) => h.jobType === PROSPECTIVE_INDEX_JOB)?.due ?? 0;
  const hintsBacklog = (): number => {
    const now = store.clock.now();
    // PostgreSQL's queue answers asynchronously: its count is taken before each check (below).
    if (queue && backlog.at !== now) backlog = { at: now, due: dueHints(queue.health()) };
    return backlog.due;
  };
  const schedule = createDreamingSchedule({
    store,
    config,
    llm,
    clock: store.clock,
    memoryWrites: deps.memoryWrites,
    recall: deps.recall,
    limiter: {
      saturated: () => limit.size > 0 || limit.pending >= limit.concurrency || hintsBacklog() > DREAMING_DEFER_BACKLOG,
      run: (task) => limit.add(task),
    },
    afterPass: (agentId, pass) => embedStoredMemories(writer, agentId, pass.memoryIds),
  });
  return {
    async check() {
      if (!queue) backlog = { at: store.clock.now(), due: dueHints(await jobs.health()) };
      return schedule.check();
    },
  };
}
