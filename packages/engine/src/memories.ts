import { agentIdSchema, idSchema, invalidInput, parseInput, throwIfAborted } from '@memory/core';
import {
  type ForgetResult,
  forgetMemory,
  getMemory,
  type HistoryEntry,
  type ForgetInput as IngestForgetInput,
  type GetMemoryOptions as IngestGetMemoryOptions,
  type ModifyInput as IngestModifyInput,
  type RecoverInput as IngestRecoverInput,
  type Memory,
  memoryHistory,
  modifyMemory,
  type RememberInput,
  type RememberResult,
  recoverMemory,
  remember,
  rememberMany,
  type ScopeInput,
} from '@memory/ingest';
import type { RecallItem, RecallResponse } from '@memory/recall';
import { z } from 'zod';
import { signalSchema, takeSignal } from './abort.js';
import type { EngineContext } from './context.js';

/** A memory in an agent's scope. */
export type MemoryRef = ScopeInput & { readonly id: string };
/** `getMemory`: forgotten memories only with `includeDeleted`. */
export type GetMemoryInput = IngestGetMemoryOptions & { readonly id: string };
/** `modify`: at least one of content, importance, tags, pinned; a `reason` for the history. */
export type ModifyInput = IngestModifyInput & { readonly id: string };
/** `forget`: a `reason`; pinned memories need `force`. */
export type ForgetInput = IngestForgetInput & { readonly id: string };
/** `recover`: restores a forgotten memory. */
export type RecoverInput = IngestRecoverInput & { readonly id: string };
/** One memory of a `rememberMany` call: a remember input whose scope is the call's `agentId`. */
export type RememberManyMemory = Omit<RememberInput, 'agentId'>;

const rememberManySchema = z.strictObject({
  agentId: agentIdSchema,
  memories: z.custom<unknown[]>(Array.isArray, 'memories must be an array'),
  conflict: z.boolean().optional(),
  signal: signalSchema.optional(),
});

/** `rememberMany`: memories for one agent; a memory carrying another `agentId` is `INVALID_INPUT`. */
export interface RememberManyInput {
  readonly agentId: string;
  readonly memories: readonly RememberManyMemory[];
  /** Checked before each batch transaction (and its embedding call); committed batches stay. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Conflict detection for every memory of the call that does not set its own `conflict`; `false`
   * adds them all as given. @default config.remember.conflict.enabled
   */
  readonly conflict?: boolean | undefined;
}

/** Remembers one memory (deduplicated per scope by normalized content). */
export function rememberOne(ctx: EngineContext, input: unknown): Promise<RememberResult> {
  return remember(ctx.writer, input);
}

/**
 * Remembers many memories for one agent. The call's `agentId` scopes every memory; a memory may
 * repeat it but not name another agent (one call writes to one scope).
 */
export async function rememberAll(ctx: EngineContext, input: unknown): Promise<RememberResult[]> {
  const { agentId, memories, signal, conflict } = parseInput(rememberManySchema, input, 'rememberMany');
  const issues: Array<{ path: PropertyKey[]; message: string }> = [];
  const inputs = memories.map((memory, i) => {
    if (typeof memory !== 'object' || memory === null || Array.isArray(memory)) return memory;
    const own = (memory as { agentId?: unknown }).agentId;
    if (own !== undefined && own !== agentId)
      issues.push({ path: ['memories', i, 'agentId'], message: "must be left out or equal the call's agentId" });
    const itsOwn = (memory as { conflict?: unknown }).conflict;
    return { ...memory, agentId, ...(conflict !== undefined && itsOwn === undefined ? { conflict } : {}) };
  });
  if (issues.length > 0) throw invalidInput('rememberMany', issues.slice(0, 10));
  throwIfAborted(signal, 'rememberMany');
  return rememberMany(ctx.writer, inputs, signal);
}

const refSchema = z.looseObject({ id: idSchema });

/** Splits a memory reference into the id and the rest of the input (the scope and options). */
function splitRef(input: unknown, operation: string): { id: string; rest: Record<string, unknown> } {
  const { id, ...rest } = parseInput(refSchema, input, operation);
  return { id, rest };
}

/** A memory in the agent's scope, or undefined. */
export function readMemory(ctx: EngineContext, input: unknown): Promise<Memory | undefined> {
  const { id, rest } = splitRef(input, 'getMemory');
  return getMemory(ctx.writer, id, rest);
}

/** Changes a memory's content, importance, tags or pinned flag, with history. */
export function modify(ctx: EngineContext, input: unknown): Promise<Memory> {
  const { id, rest } = splitRef(input, 'modify');
  return modifyMemory(ctx.writer, id, rest);
}

/** Soft-deletes a memory (pinned ones need `force`). */
export function forget(ctx: EngineContext, input: unknown): Promise<ForgetResult> {
  const { id, rest } = splitRef(input, 'forget');
  return forgetMemory(ctx.writer, id, rest);
}

/** Restores a forgotten memory within the recovery window. */
export function recover(ctx: EngineContext, input: unknown): Promise<Memory> {
  const { id, rest } = splitRef(input, 'recover');
  return recoverMemory(ctx.writer, id, rest);
}

/** A memory's audit trail, oldest first; `NOT_FOUND` outside the scope. */
export function history(ctx: EngineContext, input: unknown): Promise<HistoryEntry[]> {
  const { id, rest } = splitRef(input, 'history');
  return memoryHistory(ctx.writer, id, rest);
}

/** Recall, after the signal's one checkpoint: recall itself runs to the end once started. */
export function recallMemories(ctx: EngineContext, input: unknown): Promise<RecallResponse<RecallItem>> {
  const { signal, rest } = takeSignal(input, 'recall');
  throwIfAborted(signal, 'recall');
  return ctx.recall(rest);
}
