import { createManualClock, createManualScheduler, type TraceAttributes, type Tracer } from '@memory/core';
import { describe, expect, it } from 'vitest';
import { spanned } from '../src/tracing.js';
import { createBagOfWordsEmbedder, createTestEngine, T0 } from './helpers.js';

interface RecordedSpan {
  name: string;
  attributes: Record<string, string | number | boolean>;
  status?: { code: number; message?: string };
  exceptions: string[];
  ended: boolean;
}

/** A tracer shaped like OpenTelemetry's that keeps every span it started. */
function recordingTracer() {
  const spans: RecordedSpan[] = [];
  const tracer: Tracer = {
    startSpan(name: string, options?: { attributes?: TraceAttributes }) {
      const span: RecordedSpan = { name, attributes: { ...options?.attributes }, exceptions: [], ended: false };
      spans.push(span);
      return {
        setAttribute: (key: string, value: string | number | boolean) => {
          span.attributes[key] = value;
        },
        recordException: (error: Error) => span.exceptions.push(error.message),
        setStatus: (status: { code: number; message?: string }) => {
          span.status = status;
        },
        end: () => {
          span.ended = true;
        },
      };
    },
  };
  return { tracer, spans, named: (name: string) => spans.filter((s) => s.name === name) };
}

describe('OpenTelemetry spans', () => {
  it('remember, recall (with per-channel timings) and embedder calls each get an ended span', async () => {
    const { tracer, spans, named } = recordingTracer();
    const { engine } = await createTestEngine({ tracer, embedder: createBagOfWordsEmbedder() });
    await engine.remember({ agentId: 'bot', content: 'Dana prefers short status emails.' });
    await engine.recall({ agentId: 'bot', query: 'status emails' });
    expect(named('memory.remember')).toEqual([
      { name: 'memory.remember', attributes: { 'memory.agent_id': 'bot' }, exceptions: [], ended: true },
    ]);
    const [recall] = named('memory.recall');
    expect(recall?.attributes).toMatchObject({
      'memory.agent_id': 'bot',
      'memory.recall.results': 1,
      'memory.recall.total_ms': expect.any(Number),
      'memory.recall.lexical_ms': expect.any(Number),
      'memory.recall.semantic_ms': expect.any(Number),
      'memory.recall.fusion_ms': expect.any(Number),
    });
    expect(named('memory.embed').map((s) => s.attributes['memory.embed.purpose'])).toEqual(['index', 'query']);
    expect(spans.every((s) => s.ended)).toBe(true);
    await engine.close();
  });

  it('a refused call ends its span with the error status and the MemoryError code', async () => {
    const { tracer, named } = recordingTracer();
    const { engine } = await createTestEngine({ tracer });
    await expect(engine.remember({ agentId: 'bot', content: '   ' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    const [span] = named('memory.remember');
    expect(span).toMatchObject({
      status: { code: 2 },
      attributes: { 'memory.error_code': 'INVALID_INPUT' },
      ended: true,
    });
    expect(span?.exceptions).toHaveLength(1);
    await engine.close();
  });

  it('background jobs and the LLM calls they make are spanned, with token usage', async () => {
    const { tracer, named } = recordingTracer();
    const clock = createManualClock(T0);
    const { engine } = await createTestEngine({
      tracer,
      clock,
      scheduler: createManualScheduler(clock),
      llm: {
        generate: async () => ({ text: '1. When is standup?', usage: { inputTokens: 120, outputTokens: 8 } }),
      },
      // One background job (hints) under test, without registry auto-linking's.
      config: { registry: { autoLinkOnCreate: false } },
    });
    await engine.remember({ agentId: 'bot', content: 'Standup moved to 9:30.' });
    await engine.runDue();
    expect(named('memory.job')).toEqual([
      {
        name: 'memory.job',
        attributes: {
          'memory.job.type': 'prospective_index',
          'memory.job.id': expect.any(String),
          'memory.job.attempt': 1,
          'memory.agent_id': 'bot',
        },
        exceptions: [],
        ended: true,
      },
    ]);
    expect(named('memory.llm.generate')[0]?.attributes).toMatchObject({
      'memory.llm.messages': 1,
      'memory.llm.input_tokens': 120,
      'memory.llm.output_tokens': 8,
    });
    await engine.close();
  });

  it('without a tracer nothing is wrapped: the traced function is the function itself', () => {
    const fn = async (input: { agentId: string }) => input.agentId;
    expect(spanned(undefined, 'memory.remember', fn)).toBe(fn);
  });

  it('refuses a tracer without startSpan', async () => {
    await expect(createTestEngine({ tracer: {} as Tracer })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
  });
});
