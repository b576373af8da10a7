import type { MemoryId } from '@memory/core';
import type { DrillDown } from '@memory/recall';
import { findLiveLinkedMemoriesProgram, type LinkedMemoryRow, type MemoryType } from '@memory/store';
import type { EngineContext } from '../context.js';
import type { StewardNote, StewardNotesPort } from './notes-port.js';
import type { Resolution } from './resolvers.js';
import type { EntityRef, ParsedTaskContext, ResolvedEntity } from './task-context.js';

/** One memory or note in a task recall. */
export interface TaskRecallItem {
  readonly kind: 'memory' | 'note';
  readonly id: string;
  /** The memory's content, or the note's content. */
  readonly content: string;
  /** Notes: the title. */
  readonly title?: string;
  /** Memories: the memory type. */
  readonly memoryType?: MemoryType;
  /** Notes: the status (task recall reads active notes). */
  readonly status?: StewardNote['status'];
  /**
   * `linked`: the highest confidence among the resolved host objects linking it; `related`:
   * recall's relevance score.
   */
  readonly score: number;
  /** When the memory was created (notes: last updated), epoch ms. */
  readonly at: number;
  /** The resolved host objects that link it (empty in the `related` tier). */
  readonly linkedBy: readonly EntityRef[];
}

/** A next step to verify or see more. */
export type TaskDrillDown =
  | {
      readonly kind: 'open_host_object';
      readonly type: string;
      readonly refId: string;
      readonly label?: string;
      readonly reason: string;
    }
  | DrillDown;

/** `steward.recall`: what the task resolved to and what the agent knows about it, in confidence tiers. */
export interface TaskRecall {
  readonly entities: readonly ResolvedEntity[];
  /** Memories and active notes linked to a resolved host object: structurally verified. */
  readonly linked: readonly TaskRecallItem[];
  /** Found by text or meaning only: hypotheses to verify before acting on them. */
  readonly related: readonly TaskRecallItem[];
  readonly drillDown: readonly TaskDrillDown[];
  /** Resolvers skipped, notes unavailable, recall stages that failed. */
  readonly warnings: readonly string[];
  readonly timings: {
    /** The whole resolver pipeline, host lookups included. */
    readonly resolveMs: number;
    /** Inside host resolvers. */
    readonly resolverMs: number;
    readonly linkedMs: number;
    readonly relatedMs: number;
    readonly totalMs: number;
  };
}

export interface TaskRecallDeps {
  readonly ctx: EngineContext;
  readonly notes: StewardNotesPort | undefined;
}

const refKey = (r: { type: string; refId: string }): string => `${r.type}\u0000${r.refId}`;

/** Live memories linked to the resolved entities, most confident link first, then the store's order. */
async function linkedMemories(
  deps: TaskRecallDeps,
  agentId: string,
  entities: readonly ResolvedEntity[],
): Promise<TaskRecallItem[]> {
  const { ctx } = deps;
  const limit = ctx.config.steward.linkedLimit;
  const confidence = new Map(entities.map((e) => [refKey(e), e]));
  // Rows are (memory, reference) pairs: read enough that `limit` memories survive grouping.
  const now = ctx.portable.clock.now();
  const rows: LinkedMemoryRow[] = await ctx.portable.db.read(() =>
    findLiveLinkedMemoriesProgram(agentId, entities, now, limit * Math.max(4, entities.length)),
  );
  const byId = new Map<string, { row: LinkedMemoryRow; refs: EntityRef[]; score: number; order: number }>();
  for (const row of rows) {
    const entity = confidence.get(refKey({ type: row.ref_type, refId: row.ref_id }));
    if (!entity) continue;
    const ref: EntityRef = { type: entity.type, refId: entity.refId, ...(entity.label ? { label: entity.label } : {}) };
    const seen = byId.get(row.id);
    if (seen) {
      seen.refs.push(ref);
      seen.score = Math.max(seen.score, entity.confidence);
    } else byId.set(row.id, { row, refs: [ref], score: entity.confidence, order: byId.size });
  }
  return [...byId.values()]
    .sort((a, b) => b.score - a.score || b.refs.length - a.refs.length || a.order - b.order)
    .slice(0, limit)
    .map(({ row, refs, score }) => ({
      kind: 'memory',
      id: row.id,
      content: row.content,
      memoryType: row.type,
      score,
      at: row.created_at,
      linkedBy: refs,
    }));
}

const noteItem = (note: StewardNote, score: number, linkedBy: readonly EntityRef[]): TaskRecallItem => ({
  kind: 'note',
  id: note.id,
  title: note.title,
  content: note.content,
  status: note.status,
  score,
  at: note.updatedAt,
  linkedBy,
});

/** Active notes linked to the resolved entities (one indexed lookup per entity). */
async function linkedNotes(
  notes: StewardNotesPort,
  agentId: string,
  entities: readonly ResolvedEntity[],
  limit: number,
): Promise<TaskRecallItem[]> {
  const byId = new Map<string, { note: StewardNote; refs: EntityRef[]; score: number }>();
  for (const entity of entities) {
    const { items } = await notes.list({
      agentId,
      status: 'active',
      entity: { type: entity.type, refId: entity.refId },
      limit,
    });
    const ref: EntityRef = { type: entity.type, refId: entity.refId, ...(entity.label ? { label: entity.label } : {}) };
    for (const note of items) {
      const seen = byId.get(note.id);
      if (seen) seen.refs.push(ref);
      else byId.set(note.id, { note, refs: [ref], score: entity.confidence });
    }
  }
  return [...byId.values()]
    .sort((a, b) => b.score - a.score || b.note.updatedAt - a.note.updatedAt)
    .slice(0, limit)
    .map(({ note, refs, score }) => noteItem(note, score, refs));
}

/**
 * Task recall after resolution: the `linked` tier from structural links (memories through the
 * indexed link table, notes through the notes entity filter), then the `related` tier from the
 * engine's hybrid recall over the task's text (notes included), leaving out what is already linked.
 * Stages that fail become warnings; task recall itself does not fail for them.
 */
export async function recallForTask(
  deps: TaskRecallDeps,
  task: ParsedTaskContext,
  resolution: Resolution,
  startedAt: number,
  resolvedAt: number,
): Promise<TaskRecall> {
  const { ctx, notes } = deps;
  const { agentId } = task;
  const { steward } = ctx.config;
  const now = (): number => performance.now();
  const warnings = [...resolution.warnings];
  const entities = resolution.entities;
  let mark = now();
  const linked: TaskRecallItem[] = entities.length > 0 ? await linkedMemories(deps, agentId, entities) : [];
  if (notes && entities.length > 0) {
    try {
      linked.push(...(await linkedNotes(notes, agentId, entities, steward.linkedLimit)));
    } catch (error) {
      warnings.push(`linked notes failed: ${message(error)}`);
    }
  }
  const linkedMs = now() - mark;
  mark = now();
  const related: TaskRecallItem[] = [];
  const drillDown: TaskDrillDown[] = entities.slice(0, 3).map((e) => ({
    kind: 'open_host_object',
    type: e.type,
    refId: e.refId,
    ...(e.label ? { label: e.label } : {}),
    reason: `resolved ${e.via === 'host' ? 'by the host' : `by ${e.via}`} (confidence ${e.confidence.toFixed(2)}); confirm details in the host`,
  }));
  const query = task.text.trim().slice(0, ctx.config.limits.maxQueryChars);
  if (query.length > 0 && steward.relatedLimit > 0) {
    const taken = new Set(linked.map((i) => i.id));
    const withNotes = notes !== undefined && steward.relatedNotes;
    try {
      // One fused ranking of memories (and notes) by the engine's recall. Linked items the text
      // also matches take slots: ask for twice what the tier keeps (recall reads about five
      // candidates per result asked for, so not for every linked item too).
      const response = await ctx.recall({
        agentId,
        query,
        limit: Math.min(ctx.config.recall.maxLimit, 2 * steward.relatedLimit),
        include: withNotes ? ['memories', 'notes'] : ['memories'],
      });
      warnings.push(...response.warnings);
      for (const r of response.results) {
        if (taken.has(r.id) || related.length >= steward.relatedLimit) continue;
        if (r.kind === 'memory') related.push(relatedMemory(r));
        // Resolved notes are history for recall; the steward's tiers hold working knowledge.
        else if (r.status === 'active')
          related.push({
            kind: 'note',
            id: r.id,
            title: r.title,
            content: r.content,
            status: r.status,
            score: r.score,
            at: r.updatedAt,
            linkedBy: [],
          });
      }
      drillDown.push(...response.drillDown);
    } catch (error) {
      warnings.push(`related recall failed: ${message(error)}`);
    }
  }
  if (!notes) warnings.push('working notes are not available: task recall covers memories only');
  const relatedMs = now() - mark;
  return {
    entities,
    linked,
    related,
    drillDown,
    warnings,
    timings: {
      resolveMs: resolvedAt - startedAt,
      resolverMs: resolution.resolverMs,
      linkedMs,
      relatedMs,
      totalMs: now() - startedAt,
    },
  };
}

function relatedMemory(r: {
  id: MemoryId;
  content: string;
  type: MemoryType;
  score: number;
  createdAt: number;
}): TaskRecallItem {
  return {
    kind: 'memory',
    id: r.id,
    content: r.content,
    memoryType: r.type,
    score: r.score,
    at: r.createdAt,
    linkedBy: [],
  };
}

/** An error's message, whatever was thrown. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
