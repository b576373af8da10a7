import { type LlmProvider, labelSchema, MemoryError, type MemoryId, parseInput } from '@memory/core';
import { remember } from '@memory/ingest';
import { z } from 'zod';
import { takeSignal } from '../abort.js';
import type { EngineContext } from '../context.js';
import {
  type AcceptedProposal,
  checkProposals,
  type RejectedProposal,
  STEWARD_MEMORY_KINDS,
  type StewardMemoryKind,
} from './memory-proposals.js';
import { type MiniReflection, miniReflect } from './mini-reflection.js';
import { askModel, listIn } from './model-call.js';
import type { StewardNotesPort } from './notes-port.js';
import type { Resolution } from './resolvers.js';
import { injectedSpans } from './signal-rules.js';
import { type ParsedTaskContext, type ResolvedEntity, taskContextFields } from './task-context.js';
import { entitiesBlock, entityHandles, type TaskForPrompt, taskBlock, UNTRUSTED_TASK_RULE } from './task-prompt.js';
import { message } from './task-recall.js';

/** Outcomes after which a task is consolidated: terminal ones, and a task handed to review. */
export const TASK_OUTCOMES = ['completed', 'failed', 'cancelled', 'review'] as const;

const turnSchema = z.strictObject({
  role: z.enum(['user', 'assistant', 'tool', 'system']),
  content: z.string().max(200_000),
  /** For tool turns: the tool's name (counted in `toolsUsed`). */
  name: labelSchema(128, 'transcript[].name').optional(),
});

/** `steward.consolidate` input: the task context, a required `taskId`, and how the task ended. */
export const consolidateSchema = z.strictObject({
  ...taskContextFields,
  /** Required: what the stored memories point back to (`source: { type: 'task', id: taskId }`). */
  taskId: labelSchema(256, 'taskId'),
  outcome: z.enum(TASK_OUTCOMES, { error: `outcome must be one of: ${TASK_OUTCOMES.join(', ')}` }),
  /** The host's summary of what happened. */
  summary: z.string().max(50_000).optional(),
  /** The task's conversation; the newest turns that fit `steward.maxTaskChars` are shown to the model. */
  transcript: z.array(turnSchema).max(10_000).optional(),
  /** Tools the task called (tool turns with a `name` count too); high-signal ones start mini-reflection. */
  toolsUsed: z.array(labelSchema(128, 'toolsUsed[]')).max(1000).optional(),
});

/** `steward.consolidate` input: the task context plus how it ended. */
export type ConsolidateInput = z.input<typeof consolidateSchema> & { readonly signal?: AbortSignal | undefined };
type ParsedConsolidate = z.output<typeof consolidateSchema>;

/** A memory the steward stored or updated. */
export interface StewardMemoryWrite {
  readonly id: MemoryId;
  readonly kind: StewardMemoryKind;
  readonly content: string;
  readonly linkedEntities: ReadonlyArray<{ readonly type: string; readonly refId: string; readonly label?: string }>;
  /** Links the model proposed that the task did not resolve to: not stored. */
  readonly rejectedLinks: readonly string[];
}

/** What `steward.consolidate` did. */
export interface ConsolidationResult {
  readonly taskId: string;
  readonly entities: readonly ResolvedEntity[];
  /** New memories. */
  readonly stored: readonly StewardMemoryWrite[];
  /** Existing memories conflict detection updated with the new content (`previous` is what they held). */
  readonly updated: ReadonlyArray<StewardMemoryWrite & { readonly previous: string }>;
  readonly rejected: readonly RejectedProposal[];
  readonly notes: MiniReflection;
  /** Model failures, parse errors, resolvers skipped: logged as warnings too, never thrown. */
  readonly warnings: readonly string[];
}

export interface ConsolidateDeps {
  readonly ctx: EngineContext;
  readonly notes: StewardNotesPort | undefined;
  readonly resolve: (task: ParsedTaskContext) => Promise<Resolution>;
}

const SYSTEM_PROMPT = [
  'You are the memory steward of an AI agent. A task has ended. Propose the durable memories worth keeping for',
  `months, of these kinds only: ${STEWARD_MEMORY_KINDS.join(', ')}.`,
  'Keep: decisions made, agreements reached, incidents and their causes, stable preferences, operating rules,',
  'and lasting project context. Skip: greetings, thanks, small talk, passing states (who is online, what is',
  'happening right now), and anything only true during this task. Most tasks yield zero to two memories.',
  'Write each memory as one self-contained sentence naming who or what it is about.',
  'Link a memory only to host objects in ENTITIES, by handle (e1, e2...). Never invent a handle or an id.',
  UNTRUSTED_TASK_RULE,
  'Answer with JSON only: {"memories":[{"kind":"decision","content":"...","entities":["e1"],',
  '"importance":0.7,"confidence":0.9,"why":"..."}]}. {"memories":[]} is a good answer when nothing is durable.',
].join('\n');

/** The task's tools: the list given plus named tool turns. */
function toolsOf(input: ParsedConsolidate): string[] {
  const names = new Set(input.toolsUsed ?? []);
  for (const turn of input.transcript ?? []) if (turn.role === 'tool' && turn.name) names.add(turn.name);
  return [...names];
}

/**
 * Consolidates a finished task: resolves its host objects, asks the model for durable memories,
 * validates them (kinds, signal, injections, links against the resolved entities), stores the
 * survivors through the ordinary remember path (dedup and conflict detection included) with the
 * task as their source, then runs mini-reflection when the task used high-signal tools.
 * Model and write failures become warnings and rejections; only bad input, a missing model and an
 * aborted signal throw.
 */
export async function consolidateTask(deps: ConsolidateDeps, input: unknown): Promise<ConsolidationResult> {
  const { ctx, notes } = deps;
  const operation = 'steward.consolidate';
  const { signal, rest } = takeSignal(input, operation);
  const task = parseInput(consolidateSchema, rest, operation);
  const llm: LlmProvider | undefined = ctx.llm;
  if (!llm) throw new MemoryError('INVALID_CONFIG', `${operation} needs an llm provider in createMemoryEngine options`);
  const logger = ctx.store.logger;
  const { steward } = ctx.config;
  const resolution = await deps.resolve(task);
  const warnings = [...resolution.warnings];
  const handles = entityHandles(resolution.entities);
  const tools = toolsOf(task);
  const prompt: TaskForPrompt = {
    taskId: task.taskId,
    outcome: task.outcome,
    text: task.text,
    summary: task.summary,
    transcript: task.transcript,
    toolsUsed: tools,
  };
  const block = taskBlock(prompt, steward.maxTaskChars);
  // Everything the task said, for finding injected instructions a proposal may restate.
  const allText = [task.text, task.summary ?? '', ...(task.transcript ?? []).map((t) => t.content)].join('\n');
  const answer = await askModel(
    ctx,
    llm,
    [
      { role: 'system', content: SYSTEM_PROMPT },
      { role: 'user', content: `${entitiesBlock(handles)}\n\n${block}` },
    ],
    operation,
    signal,
  );
  const stored: StewardMemoryWrite[] = [];
  const updated: Array<StewardMemoryWrite & { previous: string }> = [];
  const rejected: RejectedProposal[] = [];
  const proposals = 'json' in answer ? listIn(answer.json, 'memories') : undefined;
  if ('failure' in answer || proposals === undefined) {
    const why = 'failure' in answer ? answer.failure : 'the model answered JSON without a "memories" list';
    warnings.push(`consolidation: ${why}`);
    logger.warn('steward consolidation: unusable model answer', { taskId: task.taskId, reason: why });
  } else {
    const injected = injectedSpans(allText);
    const checked = checkProposals(proposals, handles, injected, {
      maxMemories: steward.maxMemoriesPerTask,
      minWords: steward.minWords,
      minConfidence: steward.minConfidence,
      maxContentChars: Math.min(4000, ctx.config.limits.maxContentBytes),
    });
    rejected.push(...checked.rejected);
    for (const proposal of checked.accepted) {
      const outcome = await storeProposal(ctx, task, proposal);
      if ('rejected' in outcome) {
        rejected.push(outcome.rejected);
        if (outcome.rejected.reason === 'write_failed') {
          warnings.push(`consolidation: ${outcome.rejected.detail}`);
          logger.warn('steward consolidation: write failed', { taskId: task.taskId, error: outcome.rejected.detail });
        }
      } else if ('previous' in outcome) updated.push(outcome);
      else stored.push(outcome);
    }
    if (rejected.length > 0)
      logger.info('steward consolidation rejected proposals', {
        taskId: task.taskId,
        reasons: rejected.map((r) => r.reason),
      });
  }
  const reflection = await miniReflect(
    { ctx, llm, notes, signal },
    { agentId: task.agentId, task: prompt, handles, tools, text: allText },
  );
  warnings.push(...reflection.warnings);
  return { taskId: task.taskId, entities: resolution.entities, stored, updated, rejected, notes: reflection, warnings };
}

type StoreOutcome = StewardMemoryWrite | (StewardMemoryWrite & { previous: string }) | { rejected: RejectedProposal };

/** Remembers one accepted proposal with provenance to the task. */
async function storeProposal(
  ctx: EngineContext,
  task: ParsedConsolidate,
  proposal: AcceptedProposal,
): Promise<StoreOutcome> {
  const base = {
    kind: proposal.kind,
    content: proposal.content,
    linkedEntities: proposal.linkedEntities.map((l) => ({
      type: l.type,
      refId: l.refId,
      ...(l.label ? { label: l.label } : {}),
    })),
    rejectedLinks: proposal.rejectedLinks,
  };
  try {
    const result = await remember(ctx.writer, {
      agentId: task.agentId,
      content: proposal.content,
      type: proposal.kind,
      ...(proposal.importance !== undefined ? { importance: proposal.importance } : {}),
      tags: ['steward'],
      source: { type: 'task', id: task.taskId },
      ...(base.linkedEntities.length > 0 ? { linkedEntities: base.linkedEntities } : {}),
      why: `steward: consolidated from task ${task.taskId} (${task.outcome})${proposal.why ? `: ${proposal.why}` : ''}`,
      actor: { id: 'steward', type: 'engine' },
      requestId: task.taskId,
    });
    if (result.deduped)
      return {
        rejected: {
          kind: proposal.kind,
          content: proposal.content,
          reason: 'already_known',
          detail: 'a memory with the same content already exists',
          memoryId: result.id,
        },
      };
    if (result.updated) return { ...base, id: result.id, previous: result.previous ?? '' };
    return { ...base, id: result.id };
  } catch (error) {
    return {
      rejected: { kind: proposal.kind, content: proposal.content, reason: 'write_failed', detail: message(error) },
    };
  }
}
