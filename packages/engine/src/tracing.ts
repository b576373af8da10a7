import {
  type EmbeddingProvider,
  isMemoryError,
  type LlmProvider,
  type TraceAttributes,
  type Tracer,
  type TraceSpan,
} from '@memory/core';
import type { JobHandler } from '@memory/queue';
import type { RecallItem, RecallResponse } from '@memory/recall';

// OpenTelemetry's SpanStatusCode.ERROR; the engine depends on no tracing package.
const STATUS_ERROR = 2;

/** Runs `run` inside a span that records the error (and its `MemoryError` code) and always ends. */
async function inSpan<T>(
  tracer: Tracer,
  name: string,
  attributes: TraceAttributes,
  run: () => Promise<T>,
  describe?: (result: T, span: TraceSpan) => void,
): Promise<T> {
  const span = tracer.startSpan(name, { attributes });
  try {
    const result = await run();
    describe?.(result, span);
    return result;
  } catch (error) {
    const exception = error instanceof Error ? error : new Error(String(error));
    span.recordException(exception);
    span.setStatus({ code: STATUS_ERROR, message: exception.message });
    if (isMemoryError(error)) span.setAttribute('memory.error_code', error.code);
    throw error;
  } finally {
    span.end();
  }
}

/** The agent scope of a call's input, when it has one, as a span attribute. */
function agentAttribute(input: unknown): TraceAttributes {
  const agentId = (input as { agentId?: unknown } | null)?.agentId;
  return typeof agentId === 'string' ? { 'memory.agent_id': agentId } : {};
}

/**
 * `fn` traced as span `name`, or `fn` itself without a tracer: no wrapper, no attribute objects,
 * nothing on the call path when tracing is off.
 */
export function spanned<I, R>(
  tracer: Tracer | undefined,
  name: string,
  fn: (input: I) => Promise<R>,
  describe?: (result: R, span: TraceSpan) => void,
): (input: I) => Promise<R> {
  if (!tracer) return fn;
  return (input) => inSpan(tracer, name, agentAttribute(input), () => fn(input), describe);
}

/** Recall's per-channel timings and result count on its span. */
export function describeRecall(response: RecallResponse<RecallItem>, span: TraceSpan): void {
  span.setAttribute('memory.recall.results', response.results.length);
  for (const [channel, ms] of Object.entries(response.timings))
    span.setAttribute(`memory.recall.${channel.replace(/Ms$/, '')}_ms`, ms);
  if (response.warnings.length > 0) span.setAttribute('memory.recall.warnings', response.warnings.length);
}

/** The LLM with a `memory.llm.generate` span per call (token usage when the model reports it). */
export function tracedLlm(tracer: Tracer, llm: LlmProvider): LlmProvider {
  return {
    generate: (request, options) =>
      inSpan(
        tracer,
        'memory.llm.generate',
        { 'memory.llm.messages': request.messages.length, 'memory.llm.tools': request.tools?.length ?? 0 },
        () => llm.generate(request, options),
        (result, span) => {
          if (result.usage?.inputTokens !== undefined)
            span.setAttribute('memory.llm.input_tokens', result.usage.inputTokens);
          if (result.usage?.outputTokens !== undefined)
            span.setAttribute('memory.llm.output_tokens', result.usage.outputTokens);
        },
      ),
  };
}

/** The embedder with a `memory.embed` span per call. */
export function tracedEmbedder(tracer: Tracer, embedder: EmbeddingProvider): EmbeddingProvider {
  return {
    model: embedder.model,
    dimensions: embedder.dimensions,
    embed: (texts, options) =>
      inSpan(
        tracer,
        'memory.embed',
        {
          'memory.embed.model': embedder.model,
          'memory.embed.texts': texts.length,
          'memory.embed.purpose': options?.purpose ?? 'index',
        },
        () => embedder.embed(texts, options),
      ),
  };
}

/** A job handler with a `memory.job` span per attempt. */
export function tracedHandler(tracer: Tracer, handler: JobHandler): JobHandler {
  return (job, context) =>
    inSpan(
      tracer,
      'memory.job',
      {
        'memory.job.type': job.jobType,
        'memory.job.id': job.id,
        'memory.job.attempt': job.attempts,
        ...(job.agentId === null ? {} : { 'memory.agent_id': job.agentId }),
      },
      () => handler(job, context),
    );
}
