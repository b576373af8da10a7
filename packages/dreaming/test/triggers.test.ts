import { createManualClock, resolveConfig } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { chooseMode, decideTrigger, dreamingBackoffMs } from '../src/triggers.js';

const config = resolveConfig({ dreaming: { enabled: true } }).dreaming;
const MIN = 60_000;
const HOUR = 60 * MIN;
const idle = {
  consecutiveFailures: 0,
  lastFailureAt: null,
  lastPassAt: null,
  backlogTokens: 0,
  pendingAttention: 0,
  saturated: false,
};

describe('pass triggers (manual clock)', () => {
  it('is off unless enabled, and never runs while mutations are frozen', () => {
    const clock = createManualClock(0);
    expect(decideTrigger({ ...idle, backlogTokens: 10 }, clock.now(), resolveConfig({}).dreaming)).toEqual({
      run: false,
      reason: 'disabled',
    });
    expect(decideTrigger({ ...idle, pendingAttention: 3 }, clock.now(), { ...config, mutationsFrozen: true })).toEqual({
      run: false,
      reason: 'frozen',
    });
  });

  it('runs on attention, a first run with backlog, a large backlog, or backlog after 6 h', () => {
    const clock = createManualClock(10 * HOUR);
    const now = clock.now();
    expect(decideTrigger({ ...idle, pendingAttention: 1 }, now, config)).toEqual({ run: true, trigger: 'attention' });
    expect(decideTrigger({ ...idle, backlogTokens: 5 }, now, config)).toEqual({ run: true, trigger: 'first_run' });
    expect(decideTrigger({ ...idle, backlogTokens: 100_000, lastPassAt: now - MIN }, now, config)).toEqual({
      run: true,
      trigger: 'backlog_tokens',
    });
    expect(decideTrigger({ ...idle, backlogTokens: 99_999, lastPassAt: now - MIN }, now, config)).toEqual({
      run: false,
      reason: 'no_work',
      retryAt: now - MIN + 6 * HOUR,
    });
    expect(decideTrigger({ ...idle, backlogTokens: 1, lastPassAt: now - 6 * HOUR }, now, config)).toEqual({
      run: true,
      trigger: 'interval',
    });
    expect(decideTrigger({ ...idle, lastPassAt: now - 7 * HOUR }, now, config)).toEqual({
      run: false,
      reason: 'no_work',
    });
  });

  it('backs off 5 min · 2^min(n, 6) after failures, then halts for 24 h after 5', () => {
    const clock = createManualClock(0);
    expect([0, 1, 2, 6, 9].map((n) => dreamingBackoffMs(n, config.backoffBaseMs) / MIN)).toEqual([5, 10, 20, 320, 320]);
    const failedAt = clock.now();
    const twice = { ...idle, pendingAttention: 1, consecutiveFailures: 2, lastFailureAt: failedAt };
    expect(decideTrigger(twice, failedAt + 19 * MIN, config)).toEqual({
      run: false,
      reason: 'backoff',
      retryAt: failedAt + 20 * MIN,
    });
    expect(decideTrigger(twice, failedAt + 20 * MIN, config)).toEqual({ run: true, trigger: 'attention' });
    const halted = { ...twice, consecutiveFailures: 5 };
    expect(decideTrigger(halted, failedAt + 23 * HOUR, config)).toEqual({
      run: false,
      reason: 'halted',
      retryAt: failedAt + 24 * HOUR,
    });
    expect(decideTrigger(halted, failedAt + 24 * HOUR, config)).toEqual({ run: true, trigger: 'attention' });
  });

  it('defers while the queue or the LLM limit is saturated', () => {
    expect(decideTrigger({ ...idle, pendingAttention: 2, saturated: true }, 0, config)).toEqual({
      run: false,
      reason: 'saturated',
    });
  });

  it('alternates hygiene and content when both have work and skips a focus without work', () => {
    expect(chooseMode(null, { hygiene: true, content: true })).toBe('incremental-hygiene');
    expect(chooseMode('incremental-hygiene', { hygiene: true, content: true })).toBe('incremental-content');
    expect(chooseMode('incremental-content', { hygiene: true, content: true })).toBe('incremental-hygiene');
    expect(chooseMode('incremental-hygiene', { hygiene: true, content: false })).toBe('incremental-hygiene');
    expect(chooseMode(null, { hygiene: false, content: true })).toBe('incremental-content');
    expect(chooseMode('incremental-content', { hygiene: false, content: false })).toBeNull();
  });
});
