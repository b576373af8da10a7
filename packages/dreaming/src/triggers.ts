import type { MemoryConfig } from '@memory/core';

/** What the scheduler knows about one agent scope when it considers a pass. */
export interface TriggerState {
  readonly consecutiveFailures: number;
  readonly lastFailureAt: number | null;
  /** When the last pass finished; null before the first. */
  readonly lastPassAt: number | null;
  /** Evidence tokens not yet delivered to a pass. */
  readonly backlogTokens: number;
  /** Open attention records. */
  readonly pendingAttention: number;
  /** The queue or the LLM admission limit is full. */
  readonly saturated: boolean;
}

export type TriggerDecision =
  | { readonly run: true; readonly trigger: 'attention' | 'first_run' | 'backlog_tokens' | 'interval' }
  | {
      readonly run: false;
      readonly reason: 'disabled' | 'frozen' | 'halted' | 'backoff' | 'saturated' | 'no_work';
      readonly retryAt?: number;
    };

/** Backoff after `failures` consecutive failures: base · 2^min(failures, 6). */
export function dreamingBackoffMs(failures: number, baseMs: number): number {
  return baseMs * 2 ** Math.min(Math.max(failures, 0), 6);
}

/**
 * Whether an agent scope should run a Dreaming pass now. Pure and deterministic: the state and the
 * injected clock's `now` decide. Halted for `haltMs` after `haltAfterFailures` consecutive
 * failures; otherwise backed off after failures; deferred while saturated; then triggered by open
 * attention, a first run with any backlog, a backlog of `triggerTokens`, or any backlog once the
 * last pass is `minIntervalMs` old.
 */
export function decideTrigger(state: TriggerState, now: number, config: MemoryConfig['dreaming']): TriggerDecision {
  if (!config.enabled) return { run: false, reason: 'disabled' };
  if (config.mutationsFrozen) return { run: false, reason: 'frozen' };
  if (state.consecutiveFailures > 0 && state.lastFailureAt !== null) {
    if (state.consecutiveFailures >= config.haltAfterFailures) {
      const until = state.lastFailureAt + config.haltMs;
      if (now < until) return { run: false, reason: 'halted', retryAt: until };
    } else {
      const until = state.lastFailureAt + dreamingBackoffMs(state.consecutiveFailures, config.backoffBaseMs);
      if (now < until) return { run: false, reason: 'backoff', retryAt: until };
    }
  }
  if (state.saturated) return { run: false, reason: 'saturated' };
  if (state.pendingAttention > 0) return { run: true, trigger: 'attention' };
  if (state.backlogTokens <= 0) return { run: false, reason: 'no_work' };
  if (state.lastPassAt === null) return { run: true, trigger: 'first_run' };
  if (state.backlogTokens >= config.triggerTokens) return { run: true, trigger: 'backlog_tokens' };
  if (now - state.lastPassAt >= config.minIntervalMs) return { run: true, trigger: 'interval' };
  return { run: false, reason: 'no_work', retryAt: state.lastPassAt + config.minIntervalMs };
}

export type DreamingMode = 'incremental' | 'compact' | 'incremental-hygiene' | 'incremental-content';

/**
 * The focus of an incremental pass: hygiene and content alternate when both have work; a focus
 * with no work is skipped (and with no work at all, no model is called: null).
 */
export function chooseMode(
  previous: DreamingMode | null,
  work: { readonly hygiene: boolean; readonly content: boolean },
): DreamingMode | null {
  if (work.hygiene && work.content)
    return previous === 'incremental-hygiene' ? 'incremental-content' : 'incremental-hygiene';
  if (work.hygiene) return 'incremental-hygiene';
  if (work.content) return 'incremental-content';
  return null;
}
