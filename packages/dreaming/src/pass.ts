import { agentIdSchema, type Clock, type LlmProvider, type MemoryConfig, MemoryError, parseInput } from '@memory/core';
import { createRecall, type Recall } from '@memory/recall';
import {
  countOpenAttentionProgram,
  findDreamingStateProgram,
  insertDreamingPassProgram,
  insertDreamingToolCallProgram,
  isSqliteStore,
  type MemoryWriteDeps,
  type PortableStore,
  recordPassOutcomeProgram,
} from '@memory/store';
import { z } from 'zod';
import { type AgentRun, runAgent } from './agent.js';
import { type ApplyResult, defaultMemoryWrites, writtenMemoryIds } from './apply.js';
import { detectAttentionProgram } from './attention.js';
import {
  backlogTokensProgram,
  type DeliveredSpan,
  recordDeliveredProgram,
  selectEvidenceProgram,
} from './evidence-window.js';
import { buildRunbook, RUNBOOK_VERSION } from './runbook.js';
import { passTools } from './tools.js';
import { chooseMode, type DreamingMode } from './triggers.js';

const passInputSchema = z.strictObject({
  agentId: agentIdSchema,
  mode: z.enum(['incremental', 'compact', 'incremental-hygiene', 'incremental-content']).optional(),
  trigger: z.string().min(1).max(64).optional(),
});
export type PassInput = z.input<typeof passInputSchema>;

export interface PassResult {
  readonly passId: string;
  readonly status: 'completed' | 'failed' | 'skipped';
  readonly mode: DreamingMode | null;
  readonly summary: string;
  readonly error?: string;
  readonly toolCalls: number;
  readonly mutations: { readonly applied: number; readonly rejected: number; readonly proposals: number };
  /** Memories the pass wrote or changed (the engine gives them vectors after the pass). */
  readonly memoryIds: readonly string[];
}

/**
 * Runs one Dreaming pass for an agent: choose the mode, select the evidence window, run the bounded
 * agent with tools scoped to the agent, and record everything (the pass, its tool calls, delivered
 * offsets, the agent's state). A pass that hits a bound or whose model fails is recorded as failed
 * with what it did; evidence it did not finish is delivered again next time.
 */
export async function runDreamingPass(
  deps: {
    readonly store: PortableStore;
    readonly config: MemoryConfig;
    readonly llm: LlmProvider;
    readonly clock: Clock;
    readonly signal?: AbortSignal;
    /** The one memory writer's dependencies (the engine's queue hints for what passes write). */
    readonly memoryWrites?: MemoryWriteDeps;
    /**
     * The recall `search_evidence` runs (the engine passes one with its embedder that records no
     * access). Required on PostgreSQL. @default recall over the (SQLite) store without an embedder,
     * recording nothing
     */
    readonly recall?: Recall;
  },
  input: unknown,
): Promise<PassResult> {
  const { store, config, llm, clock } = deps;
  const request = parseInput(passInputSchema, input, 'dreaming.runPass');
  if (config.dreaming.mutationsFrozen)
    throw new MemoryError('CONFLICT', 'dreaming.mutationsFrozen is on: no passes run');
  const agentId = request.agentId;
  const passId = store.ids.next();
  const started = clock.now();
  const recall = deps.recall ?? (isSqliteStore(store) ? createRecall({ store, config }) : undefined);
  if (!recall)
    throw new MemoryError('INVALID_INPUT', 'runDreamingPass on PostgreSQL needs deps.recall (search_evidence runs it)');
  await store.db.write(() => detectAttentionProgram(agentId, config.dreaming, started, () => store.ids.next()));
  const prepared = await store.db.read(function* () {
    const state = yield* findDreamingStateProgram(agentId);
    const attention = yield* countOpenAttentionProgram(agentId);
    const backlog = yield* backlogTokensProgram(agentId);
    const mode =
      request.mode ??
      chooseMode((state?.last_mode ?? null) as DreamingMode | null, { hygiene: attention > 0, content: backlog > 0 });
    const window =
      mode === null || mode === 'incremental-hygiene'
        ? undefined
        : yield* selectEvidenceProgram(agentId, {
            budgetTokens: config.dreaming.inputBudgetTokens,
            fragmentChars: config.dreaming.fragmentChars,
          });
    return { state, attention, mode, window };
  });
  const { mode, window, attention } = prepared;
  const fragments = window?.fragments ?? [];
  const spans = window?.spans ?? [];
  const record = async (
    status: PassResult['status'],
    fields: { summary?: string; error?: string; run?: AgentRun; results?: ApplyResult[]; delivered?: DeliveredSpan[] },
  ): Promise<PassResult> => {
    const results = fields.results ?? [];
    const mutations = {
      applied: results.reduce((n, r) => n + r.applied.length, 0),
      rejected: results.reduce((n, r) => n + r.rejected.length, 0),
      proposals: results.reduce((n, r) => n + r.proposals.length, 0),
    };
    const now = clock.now();
    // One transaction: the pass, its tool calls, what it delivered and the agent's state.
    await store.db.write(function* () {
      yield* insertDreamingPassProgram({
        id: passId,
        agentId,
        trigger: request.trigger ?? 'explicit',
        mode: mode ?? 'none',
        status,
        usageJson: JSON.stringify(fields.run?.usage ?? {}),
        mutationsJson: JSON.stringify(mutations),
        summary: fields.summary ?? null,
        error: fields.error ?? null,
        evidenceWindowJson: JSON.stringify(spans),
        runbookJson: JSON.stringify({ version: RUNBOOK_VERSION, stop: fields.run?.stop ?? null }),
        startedAt: started,
        finishedAt: now,
      });
      for (const call of fields.run?.calls ?? []) {
        yield* insertDreamingToolCallProgram({
          passId,
          ordinal: call.ordinal,
          tool: call.tool,
          arguments: call.arguments,
          result: call.result,
          ok: call.ok,
          durationMs: call.durationMs,
          now,
        });
      }
      if (fields.delivered && fields.delivered.length > 0)
        yield* recordDeliveredProgram(agentId, fields.delivered, now);
      if (status !== 'skipped') yield* recordPassOutcomeProgram({ agentId, failed: status === 'failed', mode, now });
    });
    const memoryIds = [...new Set(results.flatMap((r) => writtenMemoryIds(r)))];
    return {
      passId,
      status,
      mode,
      summary: fields.summary ?? '',
      ...(fields.error ? { error: fields.error } : {}),
      toolCalls: fields.run?.calls.length ?? 0,
      mutations,
      memoryIds,
    };
  };

  if (mode === null) return record('skipped', { summary: 'no evidence and no attention: the model was not called' });
  const pulled = new Map<string, number>();
  const results: ApplyResult[] = [];
  const tools = passTools(
    store,
    config,
    agentId,
    passId,
    mode !== 'incremental-hygiene',
    fragments,
    pulled,
    results,
    deps.memoryWrites ?? defaultMemoryWrites(store, config),
    recall,
  );
  const runbook = buildRunbook(mode, { fragments: fragments.length, tokens: window?.tokens ?? 0, attention });
  let run: AgentRun;
  try {
    run = await runAgent({
      llm,
      clock,
      system: runbook.system,
      user: runbook.user,
      tools,
      limits: {
        maxToolCalls: config.dreaming.maxToolCalls,
        maxTurns: config.dreaming.maxTurns,
        deadlineAt: started + config.dreaming.passDeadlineMs,
        maxOutputTokens: config.dreaming.maxOutputTokens,
        maxResultChars: config.dreaming.maxToolResultChars,
      },
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
  } catch (error) {
    return record('failed', {
      error: `model call failed: ${error instanceof Error ? error.message : String(error)}`,
      results,
    });
  }
  // Evidence the agent actually read is delivered; the rest comes back next pass.
  const delivered = spans.flatMap((s) => {
    const to = pulled.get(s.sourceRef);
    return to === undefined ? [] : [{ ...s, to: Math.min(to, s.total) }];
  });
  if (run.stop !== 'finished') return record('failed', { error: `stopped: ${run.stop}`, run, results });
  return record('completed', { summary: run.summary, run, results, delivered });
}
