import { parseInput, throwIfAborted } from '@memory/core';
import { takeSignal } from '../abort.js';
import type { EngineContext } from '../context.js';
import { type ConsolidateInput, type ConsolidationResult, consolidateTask } from './consolidate.js';
import { type FormatTaskRecallOptions, formatTaskRecall } from './format-task-recall.js';
import type { StewardNotesPort } from './notes-port.js';
import { createResolverRegistry, type Resolution, resolveEntities, type StewardResolver } from './resolvers.js';
import { type ParsedTaskContext, type ResolvedEntity, type TaskContext, taskContextSchema } from './task-context.js';
import { recallForTask, type TaskRecall } from './task-recall.js';

/**
 * The memory steward (seed 003): resolves a task to the host objects it is about, recalls what the
 * agent knows about them in confidence tiers, and after the task consolidates durable memories and
 * working notes. The host owns its objects and registers the lookups; the engine owns the order,
 * deduplication, budget and every check on model output.
 */
export interface EngineSteward {
  /**
   * Adds a host lookup from task context to host objects. Resolvers run in the seed's confidence
   * order by `kind` (sender, thread, reminder, names, keywords, embedding), then in registration
   * order. A second resolver with the same name is `CONFLICT`.
   */
  registerResolver(resolver: StewardResolver): void;
  /** Runs the resolvers on a task: the host objects it is about, most confident first. Read-only. */
  resolve(input: TaskContext & { readonly signal?: AbortSignal }): Promise<{
    readonly entities: readonly ResolvedEntity[];
    readonly warnings: readonly string[];
  }>;
  /**
   * Task recall: resolves the task, then returns memories and active notes linked to those host
   * objects (`linked`, verified) and text or meaning matches (`related`, hypotheses), with drill-down.
   */
  recall(input: TaskContext & { readonly signal?: AbortSignal }): Promise<TaskRecall>;
  /**
   * After a task ends (`completed`, `failed`, `cancelled`) or goes to `review`: stores the durable
   * memories the model proposes that pass the steward's checks, and (after high-signal tools)
   * updates working notes. Model failures are warnings in the result, never thrown.
   */
  consolidate(input: ConsolidateInput): Promise<ConsolidationResult>;
  /** Renders a task recall for a prompt (see {@link formatTaskRecall}). */
  format(recall: TaskRecall, options?: FormatTaskRecallOptions): string;
}

/** The steward's working parts over one engine context. */
export function createSteward(ctx: EngineContext, notes: StewardNotesPort | undefined) {
  const registry = createResolverRegistry();
  const resolve = (task: ParsedTaskContext): Promise<Resolution> =>
    resolveEntities(
      {
        resolvers: registry.list(),
        clock: ctx.store.clock,
        scheduler: ctx.scheduler,
        logger: ctx.store.logger,
        config: ctx.config.steward,
      },
      task,
    );
  const parseTask = (input: unknown, operation: string): { task: ParsedTaskContext; signal?: AbortSignal } => {
    const { signal, rest } = takeSignal(input, operation);
    throwIfAborted(signal, operation);
    return { task: parseInput(taskContextSchema, rest, operation), ...(signal ? { signal } : {}) };
  };
  return {
    registerResolver: (resolver: StewardResolver): void => registry.register(resolver),
    async resolve(input: unknown) {
      const { task } = parseTask(input, 'steward.resolve');
      const { entities, warnings } = await resolve(task);
      return { entities, warnings };
    },
    async recall(input: unknown): Promise<TaskRecall> {
      const { task, signal } = parseTask(input, 'steward.recall');
      const started = performance.now();
      const resolution = await resolve(task);
      const resolved = performance.now();
      throwIfAborted(signal, 'steward.recall');
      return recallForTask({ ctx, notes }, task, resolution, started, resolved);
    },
    consolidate: (input: unknown): Promise<ConsolidationResult> => consolidateTask({ ctx, notes, resolve }, input),
    format: (recall: TaskRecall, options?: FormatTaskRecallOptions): string => formatTaskRecall(recall, options),
  };
}
