import type { MemoryEngine, TokenPermission } from '@memory/engine';
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** What a route's handler receives: the parsed parts of the request and the agent it acts for. */
export interface RouteInput<P, Q, B> {
  readonly engine: MemoryEngine;
  /** The agent the request acts for, already checked against the token's scope. */
  readonly agentId: string;
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Aborts when the client goes away. */
  readonly signal: AbortSignal;
  /** The request body as a byte stream, capped at the route's upload limit (upload routes only). */
  readonly upload: AsyncIterable<Uint8Array> | undefined;
}

/** How a route takes its body: JSON (capped by `maxBodyBytes` or `maxDocumentBytes`) or a raw upload stream. */
export type BodyKind = 'json' | 'document' | 'upload';

/**
 * One HTTP route. The same object registers the handler on the app and describes the route in the
 * OpenAPI document, so the two cannot drift: the zod schemas that validate a request are the ones
 * `/openapi.json` publishes.
 */
export interface Route {
  readonly method: HttpMethod;
  /** OpenAPI-style path (`/api/memories/{id}`). */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly permission: TokenPermission;
  /** False for engine-wide routes (diagnostics), which take no `agentId`. @default true */
  readonly scoped: boolean;
  readonly params: z.ZodObject | undefined;
  readonly query: z.ZodObject | undefined;
  readonly body: z.ZodType | undefined;
  readonly bodyKind: BodyKind;
  /** For upload routes: the media type the OpenAPI document names. */
  readonly uploadType: string | undefined;
  readonly response: z.ZodType | undefined;
  /** The success status. @default 200 */
  readonly status: number;
  /** Returns the JSON response body; an undefined result from a read is a 404. */
  readonly handle: (input: RouteInput<unknown, unknown, unknown>) => Promise<unknown>;
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A route's definition with typed handler input (see {@link Route}). */
export interface RouteSpec<P extends z.ZodObject | undefined, Q extends z.ZodObject | undefined, B> {
  readonly method: HttpMethod;
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly permission: TokenPermission;
  readonly scoped?: boolean;
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  readonly bodyKind?: BodyKind;
  readonly uploadType?: string;
  readonly response?: z.ZodType;
  readonly status?: number;
  readonly handle: (input: RouteInput<Out<P>, Out<Q>, Out<B>>) => Promise<unknown>;
}

/** Defines a route; the handler's input is typed from the schemas. */
export function defineRoute<
  P extends z.ZodObject | undefined = undefined,
  Q extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(spec: RouteSpec<P, Q, B>): Route {
  return Object.freeze({
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    tag: spec.tag,
    permission: spec.permission,
    scoped: spec.scoped ?? true,
    params: spec.params,
    query: spec.query,
    body: spec.body,
    bodyKind: spec.bodyKind ?? 'json',
    uploadType: spec.uploadType,
    response: spec.response,
    status: spec.status ?? 200,
    // The app parses params, query and body with this route's own schemas before calling, so the
    // values have the types the handler was written against.
    handle: spec.handle as (input: RouteInput<unknown, unknown, unknown>) => Promise<unknown>,
  });
}
