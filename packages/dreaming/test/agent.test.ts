import { createManualClock, type GenerateRequest, type GenerateResult, type LlmProvider } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AgentTool, runAgent } from '../src/agent.js';

/** A scripted model: each turn is a function of what it was sent. */
function scripted(turns: Array<(request: GenerateRequest) => GenerateResult>) {
  const requests: GenerateRequest[] = [];
  const llm: LlmProvider = {
    async generate(request) {
      requests.push(request);
      const turn = turns[Math.min(requests.length - 1, turns.length - 1)];
      if (!turn) throw new Error('no script');
      return turn(request);
    },
  };
  return { llm, requests };
}

const echo: AgentTool<{ text: string }> = {
  name: 'echo',
  description: 'Echoes text',
  input: z.strictObject({ text: z.string().max(100) }),
  run: ({ text }) => ({ echoed: text }),
};
const limits = {
  maxToolCalls: 50,
  maxTurns: 50,
  deadlineAt: Number.MAX_SAFE_INTEGER,
  maxOutputTokens: 500,
  maxResultChars: 2000,
};
const call = (name: string, args: string, id = 'c1') => ({ text: '', toolCalls: [{ id, name, arguments: args }] });

describe('the bounded Dreaming agent', () => {
  it('runs native tool calls, returns results to the model, and finishes on plain text without its think block', async () => {
    const model = scripted([
      () => ({ ...call('echo', '{"text":"hello"}'), usage: { inputTokens: 10, outputTokens: 5 } }),
      () => ({ text: '<think>all done</think>Consolidated one fact.', usage: { inputTokens: 20, outputTokens: 4 } }),
    ]);
    const run = await runAgent({
      llm: model.llm,
      clock: createManualClock(0),
      system: 'sys',
      user: 'go',
      tools: [echo as AgentTool<never>],
      limits,
    });
    expect(run).toMatchObject({
      stop: 'finished',
      summary: 'Consolidated one fact.',
      usage: { inputTokens: 30, outputTokens: 9 },
    });
    expect(run.calls).toEqual([
      expect.objectContaining({ ordinal: 0, tool: 'echo', ok: true, result: '{"echoed":"hello"}' }),
    ]);
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'tool',
      toolCallId: 'c1',
      content: '{"echoed":"hello"}',
    });
    expect(model.requests[0]?.tools?.[0]).toMatchObject({ name: 'echo', parameters: { type: 'object' } });
  });

  it('answers broken JSON, invalid arguments and invented tools with errors the model can correct', async () => {
    const model = scripted([
      () => call('echo', '{"text": "unterminated'),
      () => call('echo', '{"text": 42}'),
      () => call('delete_database', '{}'),
      () => call('echo', '{"text":"fixed"}'),
      () => ({ text: 'done' }),
    ]);
    const run = await runAgent({
      llm: model.llm,
      clock: createManualClock(0),
      system: 's',
      user: 'u',
      tools: [echo as AgentTool<never>],
      limits,
    });
    expect(run.calls.map((c) => [c.ok, c.result.slice(0, 40)])).toEqual([
      [false, 'error: the arguments are not valid JSON;'],
      [false, 'error: text: Invalid input: expected str'],
      [false, 'error: no tool named "delete_database"; '],
      [true, '{"echoed":"fixed"}'],
    ]);
    expect(run.stop).toBe('finished');
  });

  it('speaks a JSON text protocol with models that have no native tool calls', async () => {
    const model = scripted([
      () => ({ text: '<think>I will echo</think>\n```json\n{"tool": "echo", "arguments": {"text": "via text"}}\n```' }),
      () => ({ text: 'finished via text' }),
    ]);
    const run = await runAgent({
      llm: model.llm,
      clock: createManualClock(0),
      system: 's',
      user: 'u',
      tools: [echo as AgentTool<never>],
      limits,
    });
    expect(run).toMatchObject({ stop: 'finished', summary: 'finished via text' });
    expect(run.calls[0]).toMatchObject({ tool: 'echo', ok: true, result: '{"echoed":"via text"}' });
    expect(model.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: 'Result of echo: {"echoed":"via text"}',
    });
  });

  it('stops a runaway agent at the tool-call cap, keeping what it did', async () => {
    const model = scripted([() => call('echo', '{"text":"again"}')]);
    const run = await runAgent({
      llm: model.llm,
      clock: createManualClock(0),
      system: 's',
      user: 'u',
      tools: [echo as AgentTool<never>],
      limits: { ...limits, maxToolCalls: 20, maxTurns: 200 },
    });
    expect(run.stop).toBe('tool_call_cap');
    expect(run.calls).toHaveLength(20);
  });

  it('stops at the deadline on the injected clock, and when aborted', async () => {
    const clock = createManualClock(0);
    const slow = scripted([
      () => {
        clock.advance(15 * 60_000);
        return call('echo', '{"text":"a"}');
      },
    ]);
    const run = await runAgent({
      llm: slow.llm,
      clock,
      system: 's',
      user: 'u',
      tools: [echo as AgentTool<never>],
      limits: { ...limits, deadlineAt: 20 * 60_000 },
    });
    expect(run.stop).toBe('deadline');
    expect(run.calls).toHaveLength(1);
    const controller = new AbortController();
    const aborting = scripted([
      () => {
        controller.abort();
        return call('echo', '{"text":"b"}');
      },
    ]);
    const aborted = await runAgent({
      llm: aborting.llm,
      clock: createManualClock(0),
      system: 's',
      user: 'u',
      tools: [echo as AgentTool<never>],
      limits,
      signal: controller.signal,
    });
    expect(aborted.stop).toBe('aborted');
  });
});
