import type { Clock, LlmProvider, MemoryConfig } from '@memory/core';
import type { Recall } from '@memory/recall';
import {
  countOpenAttentionProgram,
  dreamingCandidateAgentsProgram,
  findDreamingStateProgram,
  type MemoryWriteDeps,
  type PortableStore,
} from '@memory/store';
import { backlogTokensProgram } from './evidence-window.js';
import { type PassResult, runDreamingPass } from './pass.js';
import { decideTrigger, type TriggerDecision } from './triggers.js';

/** The shared LLM admission limit, as the scheduler sees it. */
export interface PassLimiter {
  /** True when LLM work is already queued or every slot is busy. */
  saturated(): boolean;
  run<T>(task: () => Promise<T>): Promise<T>;
}

/** Agents considered per check. */
const AGENTS_PER_CHECK = 1000;

/**
 * The scheduled side of Dreaming: on each check, for every agent scope with possible work, decide
 * from its state (halt, backoff, saturation, attention, backlog, interval) whether a pass runs, and
 * run at most one pass per agent under the shared LLM limit. Failures are recorded by the pass.
 */
export function createDreamingSchedule(deps: {
  readonly store: PortableStore;
  readonly config: MemoryConfig;
  readonly llm: LlmProvider;
  readonly clock: Clock;
  readonly limiter: PassLimiter;
  /** The one memory writer's dependencies, handed to each pass. */
  readonly memoryWrites?: MemoryWriteDeps;
  /** The recall passes search evidence with (see {@link runDreamingPass}). */
  readonly recall?: Recall;
  /** Called after each pass (the engine embeds the memories it wrote). */
  readonly afterPass?: (agentId: string, pass: PassResult) => Promise<unknown>;
}) {
  const { store, config, llm, clock, limiter } = deps;
  return {
    /** One check over the agents; returns the decisions made and the passes run. */
    async check(): Promise<Array<{ agentId: string; decision: TriggerDecision; pass?: PassResult }>> {
      // Agents that could have work: completed evidence or open attention.
      const agents = await store.db.read(() => dreamingCandidateAgentsProgram(AGENTS_PER_CHECK));
      const out: Array<{ agentId: string; decision: TriggerDecision; pass?: PassResult }> = [];
      for (const agentId of agents) {
        const now = clock.now();
        const read = await store.db.read(function* () {
          const row = yield* findDreamingStateProgram(agentId);
          return {
            consecutiveFailures: row?.consecutive_failures ?? 0,
            lastFailureAt: row?.last_failure_at ?? null,
            lastPassAt: row?.last_pass_at ?? null,
            backlogTokens: yield* backlogTokensProgram(agentId),
            pendingAttention: yield* countOpenAttentionProgram(agentId),
          };
        });
        const state = { ...read, saturated: limiter.saturated() };
        const decision = decideTrigger(state, now, config.dreaming);
        if (!decision.run) {
          out.push({ agentId, decision });
          continue;
        }
        const pass = await limiter.run(() =>
          runDreamingPass(
            {
              store,
              config,
              llm,
              clock,
              ...(deps.memoryWrites ? { memoryWrites: deps.memoryWrites } : {}),
              ...(deps.recall ? { recall: deps.recall } : {}),
            },
            { agentId, trigger: decision.trigger },
          ),
        );
        await deps.afterPass?.(agentId, pass);
        out.push({ agentId, decision, pass });
      }
      return out;
    },
  };
}
