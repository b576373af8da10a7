import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryTools } from '../src/index.js';
import { testEngine, usage } from './helpers.js';

type Engine = Awaited<ReturnType<typeof testEngine>>;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

type Prompt = Array<{ role: string; content: unknown }>;

/**
 * A model that calls one tool on its first step and answers with text on the second, recording
 * the prompts it was given (the second holds the tool's result).
 */
function toolCallingModel(toolName: string, input: unknown) {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt as Prompt);
      if (prompts.length === 1)
        return {
          content: [{ type: 'tool-call', toolCallId: `call-${toolName}`, toolName, input: JSON.stringify(input) }],
          finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
          usage,
          warnings: [],
        };
      return {
        content: [{ type: 'text', text: 'Done.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
  return { model, prompts };
}

/** The tool result the SDK sent back to the model on the second step. */
function toolResult(prompts: Prompt[]): unknown {
  const tool = prompts[1]?.find((m) => m.role === 'tool');
  const part = (tool?.content as Array<{ output: { type: string; value: unknown } }> | undefined)?.[0];
  return part?.output.value;
}

describe('memoryTools', () => {
  it('remember stores a memory in the agent scope through a model tool call', async () => {
    engine = await testEngine();
    const { model, prompts } = toolCallingModel('remember', {
      content: 'Dana prefers short status emails.',
      type: 'preference',
      tags: ['dana'],
    });
    const result = await generateText({
      model,
      tools: memoryTools(engine, { agentId: 'bot', sessionId: 'chat-1' }),
      stopWhen: stepCountIs(2),
      prompt: 'Remember that Dana likes short emails.',
    });
    expect(result.text).toBe('Done.');
    const output = toolResult(prompts) as { ok: boolean; id: string; deduped: boolean };
    expect(output).toMatchObject({ ok: true, deduped: false });
    const stored = await engine.getMemory({ agentId: 'bot', id: output.id });
    expect(stored).toMatchObject({ content: 'Dana prefers short status emails.', type: 'preference', tags: ['dana'] });
    const history = await engine.history({ agentId: 'bot', id: output.id });
    expect(history[0]).toMatchObject({ event: 'created', sessionId: 'chat-1' });
    // Another agent's scope does not see it.
    expect(await engine.getMemory({ agentId: 'other', id: output.id })).toBeUndefined();
  });

  it('recall returns the scope’s matches with ids and tiers, never another agent’s', async () => {
    engine = await testEngine();
    const { id } = await engine.remember({ agentId: 'bot', content: 'Northwind renews every March.' });
    await engine.remember({ agentId: 'someone-else', content: 'Northwind renews every April.' });
    const { model, prompts } = toolCallingModel('recall', { query: 'When does Northwind renew?' });
    await generateText({
      model,
      tools: memoryTools(engine, { agentId: 'bot' }),
      stopWhen: stepCountIs(2),
      prompt: 'q',
    });
    expect(toolResult(prompts)).toEqual({
      ok: true,
      memories: [{ id, content: 'Northwind renews every March.', type: 'fact', tier: 'related', date: '2026-01-01' }],
    });
  });

  it('forget removes a memory (again: forgotten false); another agent’s id comes back as NOT_FOUND for the model to read', async () => {
    engine = await testEngine();
    const { id } = await engine.remember({ agentId: 'bot', content: 'The office code is 4411.' });
    const tools = memoryTools(engine, { agentId: 'bot' });
    const first = toolCallingModel('forget', { id, reason: 'user asked' });
    await generateText({ model: first.model, tools, stopWhen: stepCountIs(2), prompt: 'forget the code' });
    expect(toolResult(first.prompts)).toEqual({ ok: true, forgotten: true });
    expect(await engine.getMemory({ agentId: 'bot', id })).toBeUndefined();
    const again = toolCallingModel('forget', { id, reason: 'again' });
    await generateText({ model: again.model, tools, stopWhen: stepCountIs(2), prompt: 'forget it again' });
    expect(toolResult(again.prompts)).toEqual({ ok: true, forgotten: false });
    // Another agent's memory id is unknown here, exactly like a missing one.
    const theirs = await engine.remember({ agentId: 'someone-else', content: 'Their secret.' });
    const foreign = toolCallingModel('forget', { id: theirs.id, reason: 'not mine' });
    await generateText({ model: foreign.model, tools, stopWhen: stepCountIs(2), prompt: 'forget theirs' });
    expect(toolResult(foreign.prompts)).toMatchObject({ ok: false, code: 'NOT_FOUND' });
    expect(await engine.getMemory({ agentId: 'someone-else', id: theirs.id })).toMatchObject({
      content: 'Their secret.',
    });
  });

  it('input schemas refuse what the engine would, before any call (document chunks, empty content, big limits)', () => {
    const tools = memoryTools({} as Engine, { agentId: 'bot' });
    const remember = tools.remember.inputSchema as unknown as { safeParse(v: unknown): { success: boolean } };
    const recall = tools.recall.inputSchema as unknown as { safeParse(v: unknown): { success: boolean } };
    expect(remember.safeParse({ content: 'ok' }).success).toBe(true);
    expect(remember.safeParse({ content: '' }).success).toBe(false);
    expect(remember.safeParse({ content: 'x', type: 'document_chunk' }).success).toBe(false);
    expect(recall.safeParse({ query: 'x', limit: 500 }).success).toBe(false);
  });

  it('an engine refusal of model input is returned, a host failure (closed engine) is thrown as a tool error', async () => {
    engine = await testEngine();
    const tools = memoryTools(engine, { agentId: 'bot' });
    const blank = toolCallingModel('remember', { content: '\u200b\u200b' });
    await generateText({ model: blank.model, tools, stopWhen: stepCountIs(2), prompt: 'x' });
    expect(toolResult(blank.prompts)).toMatchObject({ ok: false, code: 'INVALID_INPUT' });
    await engine.close();
    const closed = toolCallingModel('recall', { query: 'anything' });
    await generateText({ model: closed.model, tools, stopWhen: stepCountIs(2), prompt: 'x' });
    const tool = closed.prompts[1]?.find((m) => m.role === 'tool');
    expect(JSON.stringify(tool)).toContain('error-text');
    expect(JSON.stringify(tool)).toContain('closed');
  });
});
