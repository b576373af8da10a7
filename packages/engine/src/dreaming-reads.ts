import { agentIdSchema, parseInput } from '@memory/core';
import type { RowChange } from '@memory/dreaming';
import {
  type AttentionView,
  type DreamingPassView,
  findDreamingPassProgram,
  listAttentionProgram,
  listDreamingPassesProgram,
  listDreamingToolCallsProgram,
  listTargetProvenanceProgram,
  type ProvenanceRow,
} from '@memory/store';
import { z } from 'zod';
import type { EngineContext } from './context.js';
import type { Citation } from './graph.js';
import { decodeCursor, type Page, pageSchema, toPage } from './paging.js';

export type { AttentionView } from '@memory/store';

/** A recorded Dreaming pass. */
export interface PassSummary {
  readonly id: string;
  readonly trigger: string;
  readonly mode: string;
  readonly status: DreamingPassView['status'];
  readonly usage: { readonly inputTokens?: number; readonly outputTokens?: number };
  readonly mutations: { readonly applied?: number; readonly rejected?: number; readonly proposals?: number };
  readonly summary: string | null;
  readonly error: string | null;
  /** Why the agent stopped: finished, tool_call_cap, turn_cap, deadline, aborted (null when the model was not run). */
  readonly stopReason: string | null;
  readonly toolCallCount: number;
  readonly startedAt: number;
  readonly finishedAt: number | null;
}

/** A pass with its evidence window and its tool calls in order. */
export interface PassDetail extends PassSummary {
  /** The evidence offered: per source, the characters `from`..`to` of `total`. */
  readonly evidenceWindow: ReadonlyArray<{ sourceRef: string; from: number; to: number; total: number }>;
  readonly runbookVersion: number | null;
  readonly toolCalls: ReadonlyArray<{
    readonly ordinal: number;
    readonly tool: string;
    readonly arguments: string;
    readonly result: string;
    readonly ok: boolean;
    readonly durationMs: number;
  }>;
}

/** One applied operation's provenance: which pass, which quotes, and the rows before and after. */
export interface ProvenanceEntry {
  readonly seq: number;
  readonly passId: string | null;
  readonly actor: string;
  readonly operation: string;
  readonly targetType: string;
  readonly targetId: string;
  readonly evidence: readonly Citation[];
  readonly confidence: number | null;
  /** The target's row before the operation changed it (renames, archives, link updates). */
  readonly previous: Readonly<Record<string, unknown>> | null;
  /** Every row the operation wrote, before and after (null for operations recorded before this was kept). */
  readonly changes: readonly RowChange[] | null;
  readonly proposalId: string | null;
  readonly createdAt: number;
  readonly revertedAt: number | null;
  readonly revertId: string | null;
}

const scoped = { agentId: agentIdSchema };
const listPassesSchema = z.strictObject({
  ...scoped,
  status: z.enum(['running', 'completed', 'failed', 'skipped']).optional(),
  ...pageSchema(200),
});
const passSchema = z.strictObject({ ...scoped, passId: z.string().min(1).max(200) });
const provenanceSchema = z.strictObject({
  ...scoped,
  targetType: z.enum(['entity', 'aspect', 'claim', 'link', 'memory', 'attention']),
  targetId: z.string().min(1).max(200),
  ...pageSchema(200),
});
const attentionSchema = z.strictObject({
  ...scoped,
  /** @default 'open' */
  state: z.enum(['open', 'resolved', 'all']).optional(),
  ...pageSchema(200),
});

export type ListPassesInput = z.input<typeof listPassesSchema>;
export type PassRef = z.input<typeof passSchema>;
export type ProvenanceInput = z.input<typeof provenanceSchema>;
export type ListAttentionInput = z.input<typeof attentionSchema>;

/** The keyset of a list ordered by a time and an id. */
export const TIME_ID_CURSOR = z.tuple([z.number().int(), z.string()]);
const SEQ_CURSOR = z.tuple([z.number().int()]);

/** A JSON column the engine wrote itself; a damaged value reads as `fallback`. */
export function json<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

function passSummary(row: DreamingPassView): PassSummary {
  return {
    id: row.id,
    trigger: row.trigger,
    mode: row.mode,
    status: row.status,
    usage: json(row.usageJson, {}),
    mutations: json(row.mutationsJson, {}),
    summary: row.summary,
    error: row.error,
    stopReason: json<{ stop?: string | null }>(row.runbookJson, {}).stop ?? null,
    toolCallCount: row.toolCalls,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
  };
}

/** A page of the agent's passes, newest first. */
export async function listPasses(ctx: EngineContext, input: unknown): Promise<Page<PassSummary>> {
  const request = parseInput(listPassesSchema, input, 'dreaming.passes.list');
  const limit = request.limit ?? 50;
  const before = decodeCursor(request.cursor, TIME_ID_CURSOR, 'dreaming.passes.list');
  const rows = await ctx.portable.db.read(() =>
    listDreamingPassesProgram(
      request.agentId,
      request.status ?? null,
      before ? { startedAt: before[0], id: before[1] } : null,
      limit + 1,
    ),
  );
  return toPage(rows, limit, (r) => [r.startedAt, r.id], passSummary);
}

/** One pass with its evidence window and tool calls, or undefined outside the scope. */
export function getPass(ctx: EngineContext, input: unknown): Promise<PassDetail | undefined> {
  const { agentId, passId } = parseInput(passSchema, input, 'dreaming.passes.get');
  return ctx.portable.db.read(function* () {
    const row = yield* findDreamingPassProgram(agentId, passId);
    if (!row) return undefined;
    // Bounded by the pass's own cap (dreaming.maxToolCalls); the ceiling keeps a bad row from flooding.
    const calls = yield* listDreamingToolCallsProgram(row.id, 10_000);
    return {
      ...passSummary(row),
      evidenceWindow: json(row.evidenceWindowJson, []),
      runbookVersion: json<{ version?: number }>(row.runbookJson, {}).version ?? null,
      toolCalls: calls.map((c) => ({
        ordinal: c.ordinal,
        tool: c.tool,
        arguments: c.arguments,
        result: c.result,
        ok: c.ok === 1,
        durationMs: c.durationMs,
      })),
    };
  });
}

function provenanceEntry(row: ProvenanceRow): ProvenanceEntry {
  return {
    seq: row.seq,
    passId: row.passId,
    actor: row.actor,
    operation: row.operation,
    targetType: row.targetType,
    targetId: row.targetId,
    evidence: json(row.evidenceJson, []),
    confidence: row.confidence,
    previous: json(row.previousJson, null),
    changes: json(row.changesJson, null),
    proposalId: row.proposalId,
    createdAt: row.createdAt,
    revertedAt: row.revertedAt,
    revertId: row.revertId,
  };
}

/** The provenance of one target, oldest first: every applied operation that named it. */
export async function provenance(ctx: EngineContext, input: unknown): Promise<Page<ProvenanceEntry>> {
  const request = parseInput(provenanceSchema, input, 'dreaming.provenance');
  const limit = request.limit ?? 50;
  const after = decodeCursor(request.cursor, SEQ_CURSOR, 'dreaming.provenance');
  const rows = await ctx.portable.db.read(() =>
    listTargetProvenanceProgram(
      request.agentId,
      { type: request.targetType, id: request.targetId },
      after?.[0] ?? 0,
      limit + 1,
    ),
  );
  return toPage(rows, limit, (r) => [r.seq], provenanceEntry);
}

/** The agent's attention records, newest first: open, resolved, or both. */
export async function attention(ctx: EngineContext, input: unknown): Promise<Page<AttentionView>> {
  const request = parseInput(attentionSchema, input, 'dreaming.attention');
  const limit = request.limit ?? 50;
  const before = decodeCursor(request.cursor, TIME_ID_CURSOR, 'dreaming.attention');
  const rows = await ctx.portable.db.read(() =>
    listAttentionProgram(
      request.agentId,
      request.state ?? 'open',
      before ? { createdAt: before[0], id: before[1] } : null,
      limit + 1,
    ),
  );
  return toPage(
    rows,
    limit,
    (r) => [r.createdAt, r.id],
    (r) => r,
  );
}
