import { agentIdSchema, labelSchema, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import {
  changeMemoryProgram,
  dependentGraphRowsProgram,
  findDreamingPassProgram,
  findLiveMemoryIdByHashProgram,
  forgetMemoryProgram,
  insertRevertProgram,
  listPassProvenanceProgram,
  type MemoryAudit,
  type MemoryWriteDeps,
  markProvenanceRevertedProgram,
  type PortableStore,
  type Program,
  type ProvenanceRow,
  prepareContent,
  type RowImage,
  type RowKind,
  type RowRef,
  readRowImageProgram,
  recountEntityMentionsProgram,
  recoverMemoryProgram,
  restoreRowImageProgram,
  type Store,
  type WriterTarget,
} from '@memory/store';
import { z } from 'zod';
import { defaultMemoryWrites } from './apply.js';
import type { RowChange } from './footprint.js';
import { readTx, runSteps, runStepsSync, type Steps, writeTx } from './run-steps.js';

const revertSchema = z.strictObject({
  agentId: agentIdSchema,
  passId: labelSchema(200, 'passId'),
  /** Without it, nothing is written: the call returns the preview. */
  apply: z.boolean().optional(),
  actor: z.strictObject({ id: labelSchema(200, 'actor.id') }).optional(),
  reason: z.string().trim().min(1).max(1000).optional(),
});

/** `dreaming.revert`'s input. */
export type RevertInput = z.input<typeof revertSchema>;

/** What a revert does to one row: delete what the pass created, or put back the row it changed. */
export type RevertAction = 'delete' | 'restore' | 'forget_memory' | 'restore_memory_content' | 'recover_memory';

export interface RevertRow {
  readonly kind: RowKind;
  readonly key: readonly string[];
  readonly action: RevertAction;
  /** The row as it is now (null: no such row). */
  readonly current: RowImage | null;
  /** The row as it was before the pass (null: it did not exist). */
  readonly restoreTo: RowImage | null;
}

/** Why a row cannot be put back: everything is refused until it is resolved. */
export interface RevertConflict {
  readonly kind?: RowKind;
  readonly key?: readonly string[];
  readonly seq?: number;
  readonly reason: string;
}

/** A revert's preview, or its result (`applied: true`, with the `revertId` its records point at). */
export interface RevertResult {
  readonly passId: string;
  readonly applied: boolean;
  readonly revertId?: string;
  /** The pass's operations being taken back, newest first (the order they are undone). */
  readonly operations: ReadonlyArray<{
    readonly seq: number;
    readonly operation: string;
    readonly targetType: string;
    readonly targetId: string;
    readonly createdAt: number;
  }>;
  readonly rows: readonly RevertRow[];
  readonly conflicts: readonly RevertConflict[];
  /** Memories whose content came back (they need vectors again). */
  readonly memoryIds: readonly string[];
}

// A pass writes at most maxToolCalls × 100 operations; this bounds a revert's read.
const MAX_PASS_OPERATIONS = 10_000;
// Restores run parents first; deletes children first (rows the pass created may hang off each other).
const PARENT_ORDER: readonly RowKind[] = [
  'entity',
  'aspect',
  'claim',
  'link',
  'alias',
  'mention',
  'attention',
  'memory',
];
const DAY_MS = 86_400_000;

const keyOf = (kind: RowKind, key: readonly string[]): string => `${kind}\u0000${key.join('\u0000')}`;
/**
 * Whether a row is as the pass left it. An entity's mention count is derived from mention rows,
 * which any later memory write changes: it is left out (and recounted after a revert).
 */
function same(kind: RowKind, a: RowImage | null, b: RowImage | null): boolean {
  const shown = (image: RowImage | null) => {
    if (kind !== 'entity' || image === null) return image;
    const { mentions: _derived, ...rest } = image;
    return rest;
  };
  return JSON.stringify(shown(a)) === JSON.stringify(shown(b));
}

interface RowPlan {
  readonly kind: RowKind;
  readonly key: readonly string[];
  /** The row before the pass's first change of it, and after its last. */
  readonly first: RowImage | null;
  readonly last: RowImage | null;
  readonly seq: number;
}

function memoryAction(plan: RowPlan): RevertAction | undefined {
  const before = plan.first as { is_deleted?: number; content?: string } | null;
  const after = plan.last as { is_deleted?: number } | null;
  if (before === null && after?.is_deleted === 0) return 'forget_memory';
  if (before?.is_deleted === 0 && after?.is_deleted === 0) return 'restore_memory_content';
  if (before?.is_deleted === 0 && after?.is_deleted === 1) return 'recover_memory';
  return undefined;
}

/** Reads what reverting the pass would do, and every reason it cannot. */
function* planRevertProgram(
  config: MemoryConfig,
  agentId: string,
  passId: string,
  now: number,
): Program<Omit<RevertResult, 'applied' | 'memoryIds'>> {
  const provenance = yield* listPassProvenanceProgram(agentId, passId, MAX_PASS_OPERATIONS);
  if (provenance.length === 0 && !(yield* findDreamingPassProgram(agentId, passId)))
    throw new MemoryError('NOT_FOUND', `no Dreaming pass ${passId} in this scope`, { details: { passId } });
  const open = provenance.filter((p) => p.revertedAt === null);
  if (provenance.length > 0 && open.length === 0)
    throw new MemoryError('CONFLICT', `pass ${passId} was already reverted`, {
      details: { passId, revertId: provenance[0]?.revertId ?? null },
    });
  const conflicts: RevertConflict[] = [];
  const plans = new Map<string, RowPlan>();
  for (const p of open) collectChanges(p, plans, conflicts);

  const rows: RevertRow[] = [];
  const planned = new Set(plans.keys());
  for (const plan of [...plans.values()].sort((a, b) => b.seq - a.seq)) {
    const ref: RowRef = { kind: plan.kind, key: plan.key };
    const current = yield* readRowImageProgram(ref);
    const conflict = (reason: string) => conflicts.push({ kind: plan.kind, key: plan.key, seq: plan.seq, reason });
    // Mentions are derived from memories: a forgotten memory took its mentions, which is fine.
    if (plan.kind !== 'mention' && !same(plan.kind, current, plan.last))
      conflict(`${plan.kind} ${plan.key.join('/')} changed after the pass wrote it; revert the later change first`);
    if (plan.kind === 'memory') {
      // Created and archived by the pass: it is already as good as absent (forgotten, recoverable).
      if (plan.first === null && (plan.last as { is_deleted?: number } | null)?.is_deleted === 1) continue;
      const action = memoryAction(plan);
      if (!action) conflict(`memory ${plan.key[0]}: this change cannot be taken back`);
      const before = plan.first as { content_hash?: string; id?: string } | null;
      if (action === 'restore_memory_content' || action === 'recover_memory') {
        const clash = before?.content_hash
          ? yield* findLiveMemoryIdByHashProgram(agentId, before.content_hash)
          : undefined;
        if (clash && clash !== plan.key[0]) conflict(`memory ${clash} now holds the content memory ${plan.key[0]} had`);
      }
      if (action === 'recover_memory') {
        const deletedAt = (current as { deleted_at?: number | null } | null)?.deleted_at ?? now;
        if (now - deletedAt > config.retention.recoverWindowDays * DAY_MS)
          conflict(`memory ${plan.key[0]} was archived longer ago than retention.recoverWindowDays`);
      }
      rows.push({ kind: plan.kind, key: plan.key, action: action ?? 'restore', current, restoreTo: plan.first });
      continue;
    }
    if (plan.first === null) {
      for (const dependent of yield* dependentGraphRowsProgram(ref)) {
        if (!planned.has(keyOf(dependent.kind, dependent.key)))
          conflict(
            `${plan.kind} ${plan.key[0]} has a ${dependent.kind} (${dependent.key[0]}) the pass did not write; revert or archive it first`,
          );
      }
    }
    rows.push({
      kind: plan.kind,
      key: plan.key,
      action: plan.first === null ? 'delete' : 'restore',
      current,
      restoreTo: plan.first,
    });
  }
  const operations = [...open].reverse().map((p) => ({
    seq: p.seq,
    operation: p.operation,
    targetType: p.targetType,
    targetId: p.targetId,
    createdAt: p.createdAt,
  }));
  return { passId, operations, rows, conflicts };
}

/** Folds one operation's row changes into the per-row plan: the first image before, the last after. */
function collectChanges(p: ProvenanceRow, plans: Map<string, RowPlan>, conflicts: RevertConflict[]): void {
  if (p.changesJson === null) {
    conflicts.push({
      seq: p.seq,
      reason: `${p.operation} on ${p.targetType} ${p.targetId} was recorded without row images (before migration 14); it cannot be reverted here`,
    });
    return;
  }
  for (const change of JSON.parse(p.changesJson) as RowChange[]) {
    const k = keyOf(change.kind, change.key);
    const earlier = plans.get(k);
    plans.set(k, {
      kind: change.kind,
      key: change.key,
      first: earlier ? earlier.first : change.before,
      last: change.after,
      seq: p.seq,
    });
  }
}

function* applyRowsProgram(
  target: WriterTarget,
  deps: MemoryWriteDeps,
  rows: readonly RevertRow[],
  audit: MemoryAudit,
  agentId: string,
  windowMs: number,
  now: number,
): Program<string[]> {
  const rank = (kind: RowKind) => PARENT_ORDER.indexOf(kind);
  const deletes = rows.filter((r) => r.action === 'delete').sort((a, b) => rank(b.kind) - rank(a.kind));
  const restores = rows.filter((r) => r.action === 'restore').sort((a, b) => rank(a.kind) - rank(b.kind));
  for (const row of deletes) yield* restoreRowImageProgram(row, null);
  for (const row of restores) {
    if (row.kind === 'mention') {
      const image = row.restoreTo as { memory_id?: string; entity_id?: string } | null;
      const memory = (yield* readRowImageProgram({ kind: 'memory', key: [image?.memory_id ?? ''] })) as {
        is_deleted?: number;
      } | null;
      const entity = yield* readRowImageProgram({ kind: 'entity', key: [image?.entity_id ?? ''] });
      // A mention of a memory forgotten since the pass stays gone, like the memory's other derived rows.
      if (memory?.is_deleted !== 0 || entity === null) continue;
    }
    yield* restoreRowImageProgram(row, row.restoreTo);
  }
  yield* recountEntityMentionsProgram(restores.filter((r) => r.kind === 'entity').map((r) => r.key[0] ?? ''));
  const live: string[] = [];
  for (const row of rows) {
    const id = row.key[0] ?? '';
    if (row.action === 'forget_memory')
      yield* forgetMemoryProgram(target, deps, { agentId, id, force: true, coldCopy: true, audit }, now);
    else if (row.action === 'restore_memory_content') {
      const content = (row.restoreTo as { content: string }).content;
      yield* changeMemoryProgram(target, deps, { agentId, id, content: prepareContent(content), audit }, now);
      live.push(id);
    } else if (row.action === 'recover_memory') {
      const recovered = yield* recoverMemoryProgram(target, deps, { agentId, id, windowMs, audit }, now);
      // The pass may have rewritten the memory before archiving it: its content comes back too.
      const content = (row.restoreTo as { content: string }).content;
      if (recovered.content !== content)
        yield* changeMemoryProgram(target, deps, { agentId, id, content: prepareContent(content), audit }, now);
      live.push(id);
    }
  }
  return live;
}

/**
 * Takes back everything one pass wrote in the agent's scope: every row it created is deleted (a
 * memory is forgotten through the memory writer) and every row it changed is put back as its
 * provenance recorded it before the pass, newest operation first, in one transaction recorded as
 * one revert (`dreaming_reverts`; the provenance rows point at it; memory history names it). Without
 * `apply: true` it is a preview and writes nothing. A row changed since the pass, or a row the pass
 * created that something else now hangs off, is a conflict: the revert is refused (`CONFLICT`, the
 * conflicts in `details`) and the preview lists them. `NOT_FOUND` for a pass outside the scope.
 */
export function revertPass(
  store: Store,
  config: MemoryConfig,
  input: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): RevertResult {
  return runStepsSync(store, revertSteps(store, config, input, memoryWrites));
}

/** {@link revertPass} on a store of either dialect (the revert is one SERIALIZABLE transaction on PostgreSQL). */
export async function revertPassOn(
  store: PortableStore,
  config: MemoryConfig,
  input: unknown,
  memoryWrites: MemoryWriteDeps = defaultMemoryWrites(store, config),
): Promise<RevertResult> {
  const { agentId } = parseInput(revertSchema, input, 'dreaming.revert');
  return runSteps(store, revertSteps(store, config, input, memoryWrites), { agentIds: [agentId] });
}

function* revertSteps(
  store: PortableStore,
  config: MemoryConfig,
  input: unknown,
  memoryWrites: MemoryWriteDeps,
): Steps<RevertResult> {
  const request = parseInput(revertSchema, input, 'dreaming.revert');
  const now = store.clock.now();
  if (request.apply !== true) {
    const plan = yield* readTx(() => planRevertProgram(config, request.agentId, request.passId, now));
    return { ...plan, applied: false, memoryIds: [] };
  }
  if (config.dreaming.mutationsFrozen)
    throw new MemoryError('CONFLICT', 'dreaming.mutationsFrozen is on: nothing is written');
  return yield* writeTx(function* (target): Program<RevertResult> {
    const plan = yield* planRevertProgram(config, request.agentId, request.passId, now);
    if (plan.conflicts.length > 0)
      throw new MemoryError('CONFLICT', `pass ${request.passId} cannot be reverted: ${plan.conflicts[0]?.reason}`, {
        details: { passId: request.passId, conflicts: plan.conflicts.slice(0, 20).map((c) => c.reason) },
      });
    const revertId = store.ids.next();
    const actor = request.actor?.id ?? 'operator';
    const audit: MemoryAudit = {
      actor: { id: actor, type: 'operator' },
      requestId: revertId,
      reason: request.reason ?? `revert of Dreaming pass ${request.passId}`,
      metadata: { dreaming: { revertOf: request.passId, revertId } },
    };
    const windowMs = config.retention.recoverWindowDays * DAY_MS;
    const memoryIds = yield* applyRowsProgram(target, memoryWrites, plan.rows, audit, request.agentId, windowMs, now);
    yield* markProvenanceRevertedProgram(
      plan.operations.map((o) => o.seq),
      revertId,
      now,
    );
    yield* insertRevertProgram({
      id: revertId,
      agentId: request.agentId,
      passId: request.passId,
      actor,
      reason: request.reason ?? null,
      operations: plan.operations.length,
      rowsRestored: plan.rows.length,
      now,
    });
    return { ...plan, applied: true, revertId, memoryIds };
  });
}
