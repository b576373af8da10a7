/** Span attribute values, as OpenTelemetry accepts them. */
export type TraceAttributes = Readonly<Record<string, string | number | boolean>>;

/** The part of an OpenTelemetry `Span` the engine uses. */
export interface TraceSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  recordException(exception: Error): unknown;
  /** `code` 2 is OpenTelemetry's `SpanStatusCode.ERROR`. */
  setStatus(status: { code: number; message?: string }): unknown;
  end(): unknown;
}

/**
 * The part of an OpenTelemetry `Tracer` the engine uses: pass `trace.getTracer('@memory')` from
 * `@opentelemetry/api`. Structural, so the engine depends on no tracing package; without a tracer
 * no span is ever created.
 */
export interface Tracer {
  startSpan(name: string, options?: { attributes?: TraceAttributes }): TraceSpan;
}
