import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryMiddleware, memoryTools } from '../src/index.js';
import { testEngine, usage } from './helpers.js';

type Engine = Awaited<ReturnType<typeof testEngine>>;
let engine: Engine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

type Prompt = Array<{ role: string; content: unknown }>;

/** A model that answers each call with the next of `answers` (the last repeats) and records its prompts. */
function answering(...answers: string[]) {
  const prompts: Prompt[] = [];
  const next = (): string => answers[Math.min(prompts.length - 1, answers.length - 1)] ?? '';
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      prompts.push(options.prompt as Prompt);
      return {
        content: [{ type: 'text', text: next() }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    },
    doStream: async (options) => {
      prompts.push(options.prompt as Prompt);
      const words = next().split(/(?<= )/);
      return {
        stream: convertArrayToReadableStream([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          ...words.map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
          { type: 'text-end', id: 't' },
          { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
        ]),
      };
    },
  });
  return { model, prompts };
}

const systemOf = (prompt: Prompt | undefined): string[] =>
  (prompt ?? []).filter((m) => m.role === 'system').map((m) => String(m.content));

describe('memoryMiddleware', () => {
  it('puts tiered recall for the last user message into the one system message', async () => {
    engine = await testEngine();
    await engine.remember({ agentId: 'bot', content: 'Dana prefers short status emails with a bullet list.' });
    await engine.remember({ agentId: 'bot', content: 'The parking garage closes at 22:00.' });
    await engine.remember({ agentId: 'intruder', content: 'Dana prefers long emails in French.' });
    const { model, prompts } = answering('Keep it short.');
    const wrapped = wrapLanguageModel({ model, middleware: memoryMiddleware(engine, { agentId: 'bot' }) });
    const { text } = await generateText({
      model: wrapped,
      system: 'You are a helpful assistant.',
      prompt: 'How should I write the status email to Dana?',
    });
    expect(text).toBe('Keep it short.');
    const system = systemOf(prompts[0]);
    expect(system).toHaveLength(1);
    expect(system[0]).toMatch(/^You are a helpful assistant\.\n\nMemories recalled for this conversation/);
    expect(system[0]).toContain('POSSIBLY RELATED');
    expect(system[0]).toContain('Dana prefers short status emails with a bullet list.');
    expect(system[0]).not.toContain('French');
    // The user's message is untouched and still last.
    expect(prompts[0]?.at(-1)).toMatchObject({ role: 'user' });
  });

  it('keeps the injected block within the token budget', async () => {
    engine = await testEngine();
    await engine.rememberMany({
      agentId: 'bot',
      memories: Array.from({ length: 40 }, (_, i) => ({
        content: `Dana note ${i}: status emails to Dana should mention project ${i} and its owner in detail.`,
      })),
    });
    const { model, prompts } = answering('ok');
    const budgetTokens = 60;
    const wrapped = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(engine, { agentId: 'bot', budgetTokens, limit: 40 }),
    });
    await generateText({ model: wrapped, prompt: 'What goes into the status email to Dana?' });
    const [block] = systemOf(prompts[0]);
    const recalled = (block ?? '').split('\n').slice(1).join('\n');
    expect(recalled).toContain('Dana note');
    // formatRecall counts 4 characters a token and stops adding lines at the budget.
    expect(recalled.length).toBeLessThanOrEqual(budgetTokens * 4 + 80);
    expect(recalled).toMatch(/more/);
  });

  it('leaves the prompt alone when nothing is recalled, and when recall fails (reported to onError)', async () => {
    engine = await testEngine();
    const { model, prompts } = answering('hello');
    const errors: string[] = [];
    const wrapped = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(engine, { agentId: 'bot', onError: (_e, during) => errors.push(during) }),
    });
    await generateText({ model: wrapped, prompt: 'Anything about Dana?' });
    expect(systemOf(prompts[0])).toEqual([]);
    await engine.close();
    await generateText({ model: wrapped, system: 'sys', prompt: 'Anything about Dana?' });
    expect(systemOf(prompts[1])).toEqual(['sys']);
    expect(errors).toEqual(['recall']);
    engine = undefined;
  });

  it('appends each turn to the session transcript (generate and stream)', async () => {
    engine = await testEngine();
    const { model } = answering('Moved to Thursday 10:00.', 'Standup stays at 9:30.');
    const wrapped = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(engine, { agentId: 'bot', transcript: { sessionKey: 'chat-42', harness: 'tests' } }),
    });
    await generateText({ model: wrapped, prompt: 'Can you move the renewal call?' });
    const streamed = streamText({ model: wrapped, prompt: 'And the standup?' });
    expect(await streamed.text).toBe('Standup stays at 9:30.');
    const transcript = await engine.transcripts.get({ agentId: 'bot', sessionKey: 'chat-42' });
    expect(transcript?.turns.map((t) => [t.role, t.content])).toEqual([
      ['user', 'Can you move the renewal call?'],
      ['assistant', 'Moved to Thursday 10:00.'],
      ['user', 'And the standup?'],
      ['assistant', 'Standup stays at 9:30.'],
    ]);
    expect(await engine.transcripts.get({ agentId: 'intruder', sessionKey: 'chat-42' })).toBeUndefined();
  });

  it('keeps the user turn once across the steps of a tool loop, and the recall sees what step one remembered', async () => {
    engine = await testEngine();
    const prompts: Prompt[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        prompts.push(options.prompt as Prompt);
        if (prompts.length === 1)
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: 'remember',
                input: JSON.stringify({ content: 'The renewal call with Northwind is on Thursday.' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        return {
          content: [{ type: 'text', text: 'Noted.' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    const wrapped = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(engine, { agentId: 'bot', transcript: { sessionKey: 'chat-7' } }),
    });
    await generateText({
      model: wrapped,
      tools: memoryTools(engine, { agentId: 'bot' }),
      stopWhen: stepCountIs(2),
      prompt: 'Note that the Northwind renewal call is on Thursday.',
    });
    const transcript = await engine.transcripts.get({ agentId: 'bot', sessionKey: 'chat-7' });
    expect(transcript?.turns.map((t) => [t.role, t.content])).toEqual([
      ['user', 'Note that the Northwind renewal call is on Thursday.'],
      ['assistant', 'Noted.'],
    ]);
    expect(systemOf(prompts[0])).toEqual([]);
    expect(systemOf(prompts[1])[0]).toContain('The renewal call with Northwind is on Thursday.');
  });
});
