import {
  type ChatMessage,
  type Clock,
  type LlmProvider,
  parseLenientJson,
  stripThinkBlocks,
  type ToolCall,
  type ToolSpec,
  type Usage,
} from '@memory/core';
import { z } from 'zod';

/** A tool the Dreaming agent may call: its schema is the single source of both validation and the JSON Schema the model sees. */
export interface AgentTool<I = unknown> {
  readonly name: string;
  readonly description: string;
  readonly input: z.ZodType<I>;
  /** The tool's result (awaited when a promise), sent to the model as JSON. */
  run(input: I): unknown;
}

/** One tool call as the pass records it. */
export interface ToolCallRecord {
  readonly ordinal: number;
  readonly tool: string;
  readonly arguments: string;
  readonly result: string;
  readonly ok: boolean;
  readonly durationMs: number;
}

export interface AgentLimits {
  /** Tool calls in the whole run. */
  readonly maxToolCalls: number;
  /** Model turns in the whole run. */
  readonly maxTurns: number;
  /** Epoch ms (injected clock) after which the run stops. */
  readonly deadlineAt: number;
  /** Output tokens asked per model turn. */
  readonly maxOutputTokens: number;
  /** Characters of a tool result shown to the model and recorded. */
  readonly maxResultChars: number;
}

export type AgentStop = 'finished' | 'tool_call_cap' | 'turn_cap' | 'deadline' | 'aborted';

export interface AgentRun {
  readonly stop: AgentStop;
  /** The model's final text (think blocks removed), when it finished. */
  readonly summary: string;
  readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
  readonly calls: readonly ToolCallRecord[];
}

const JSON_PROTOCOL = [
  'If you cannot call tools natively, reply with JSON only: {"tool": "<name>", "arguments": {...}}',
  '(or a list of such objects). Reply with plain text when you are done.',
].join(' ');

/** A tool call written as JSON text by a model without native tool calling. */
const textCallSchema = z.object({ tool: z.string().min(1).max(100), arguments: z.unknown().optional() });

function textToolCalls(text: string, turn: number): ToolCall[] {
  const value = parseLenientJson(text);
  const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
  const calls: ToolCall[] = [];
  items.forEach((item: unknown, i) => {
    const parsed = textCallSchema.safeParse(item);
    if (parsed.success)
      calls.push({
        id: `text-${turn}-${i}`,
        name: parsed.data.tool,
        arguments: JSON.stringify(parsed.data.arguments ?? {}),
      });
  });
  return calls;
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [truncated ${text.length - max} characters]`;
}

async function runTool(
  tools: ReadonlyMap<string, AgentTool>,
  call: ToolCall,
): Promise<{ ok: boolean; result: string }> {
  const tool = tools.get(call.name);
  if (!tool)
    return { ok: false, result: `error: no tool named "${call.name}"; available: ${[...tools.keys()].join(', ')}` };
  const args = call.arguments.trim() === '' ? {} : parseLenientJson(call.arguments);
  if (args === undefined) return { ok: false, result: 'error: the arguments are not valid JSON; send one JSON object' };
  const parsed = tool.input.safeParse(args);
  if (!parsed.success)
    return {
      ok: false,
      result: `error: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'arguments'}: ${i.message}`).join('; ')}`,
    };
  try {
    return { ok: true, result: JSON.stringify(await tool.run(parsed.data)) };
  } catch (error) {
    return { ok: false, result: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/**
 * Runs one bounded agent: the model calls tools (natively, or through a JSON text protocol for
 * models without tool calling) until it answers in plain text, or a bound stops it — the tool-call
 * cap, the turn cap, the deadline on the injected clock, or the abort signal. Model output is
 * untrusted: unknown tools, broken JSON and invalid arguments come back to the model as errors it
 * can correct, and every call is recorded with a capped result.
 */
export async function runAgent(input: {
  readonly llm: LlmProvider;
  readonly clock: Clock;
  readonly system: string;
  readonly user: string;
  readonly tools: ReadonlyArray<AgentTool<never>>;
  readonly limits: AgentLimits;
  readonly signal?: AbortSignal;
}): Promise<AgentRun> {
  const tools = new Map<string, AgentTool>(input.tools.map((t) => [t.name, t as unknown as AgentTool]));
  const specs: ToolSpec[] = input.tools.map((t) => ({
    name: t.name,
    description: t.description,
    parameters: z.toJSONSchema(t.input, { unrepresentable: 'any' }) as Record<string, unknown>,
  }));
  const messages: ChatMessage[] = [
    { role: 'system', content: `${input.system}\n\n${JSON_PROTOCOL}` },
    { role: 'user', content: input.user },
  ];
  const calls: ToolCallRecord[] = [];
  const usage = { inputTokens: 0, outputTokens: 0 };
  const addUsage = (u: Usage | undefined): void => {
    usage.inputTokens += u?.inputTokens ?? 0;
    usage.outputTokens += u?.outputTokens ?? 0;
  };
  const stop = (reason: AgentStop, summary = ''): AgentRun => ({ stop: reason, summary, usage, calls });

  for (let turn = 0; ; turn++) {
    if (input.signal?.aborted) return stop('aborted');
    if (input.clock.now() >= input.limits.deadlineAt) return stop('deadline');
    if (turn >= input.limits.maxTurns) return stop('turn_cap');
    const answer = await input.llm.generate(
      { messages, tools: specs, maxOutputTokens: input.limits.maxOutputTokens, temperature: 0.2 },
      input.signal ? { signal: input.signal } : {},
    );
    addUsage(answer.usage);
    const text = stripThinkBlocks(answer.text);
    const native = answer.toolCalls !== undefined && answer.toolCalls.length > 0;
    const toolCalls = native ? (answer.toolCalls ?? []) : textToolCalls(text, turn);
    if (toolCalls.length === 0) return stop('finished', text);
    // Native calls go back as tool messages; JSON-protocol calls as one user message of results.
    messages.push(
      native ? { role: 'assistant', content: text, toolCalls } : { role: 'assistant', content: answer.text },
    );
    const textResults: string[] = [];
    for (const call of toolCalls) {
      if (calls.length >= input.limits.maxToolCalls) return stop('tool_call_cap');
      if (input.clock.now() >= input.limits.deadlineAt) return stop('deadline');
      const started = performance.now();
      const { ok, result } = await runTool(tools, call);
      const shown = cap(result, input.limits.maxResultChars);
      calls.push({
        ordinal: calls.length,
        tool: call.name.slice(0, 100),
        arguments: cap(call.arguments, input.limits.maxResultChars),
        result: shown,
        ok,
        durationMs: performance.now() - started,
      });
      if (native) messages.push({ role: 'tool', toolCallId: call.id, content: shown });
      else textResults.push(`Result of ${call.name}: ${shown}`);
    }
    if (!native) messages.push({ role: 'user', content: textResults.join('\n\n') });
  }
}
