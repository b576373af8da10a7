import { invalidInput } from '@memory/core';
import { Hono } from 'hono';
import type { z } from 'zod';
import { authenticate, requirePermission, resolveAgent } from './auth.js';
import { errorResponse, notFound } from './errors.js';
import { buildOpenApi, type OpenApiDocument } from './openapi.js';
import { type HttpServerOptions, type ResolvedHttpOptions, resolveHttpOptions } from './options.js';
import { createRateLimiter, type RateLimiter } from './rate-limit.js';
import { cappedUpload, checkDeclaredLength, readJsonBody, tooLarge } from './request-body.js';
import type { Route } from './route.js';
import { API_ROUTES } from './routes/index.js';

const API_VERSION = '0.1.0';

/** The API as a fetch handler: mount it in any server that speaks `Request`/`Response`, or use `serveHttp`. */
export interface HttpServer {
  /** Answers one request. */
  fetch(request: Request): Promise<Response>;
  /** Every API route (method, path, permission, schemas), as `/openapi.json` describes them. */
  readonly routes: readonly Route[];
  /** The OpenAPI 3.1 document served at `/openapi.json`. */
  readonly openapi: OpenApiDocument;
}

const json = (body: unknown, status: number, headers: Readonly<Record<string, string>> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

function parsePart<S extends z.ZodType>(schema: S, value: unknown, operation: string, part: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw invalidInput(operation, parsed.error.issues, parsed.error, [part]);
}

/** The query string as a record, without `agentId` (which selects the scope, not the operation). */
function queryOf(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [key, value] of url.searchParams) if (key !== 'agentId') query[key] = value;
  return query;
}

/**
 * Runs one route: authenticate and rate-limit, resolve the agent within the token's scope (404
 * outside it), check the permission, parse path, query and body with the route's schemas, call the
 * engine. The order matters: nothing is read or parsed for a request that may not reach the scope.
 */
async function dispatch(
  options: ResolvedHttpOptions,
  limiter: RateLimiter | undefined,
  route: Route,
  request: Request,
  pathParams: Record<string, string>,
): Promise<Response> {
  const { engine } = options;
  const token = await authenticate(engine, limiter, request.headers.get('authorization') ?? undefined);
  const url = new URL(request.url);
  const agentId = route.scoped ? resolveAgent(token, url.searchParams.get('agentId') ?? undefined) : '';
  requirePermission(token, route.permission);
  const op = route.operationId;
  const params = route.params ? parsePart(route.params, pathParams, op, 'path') : undefined;
  const query = route.query ? parsePart(route.query, queryOf(url), op, 'query') : undefined;
  let body: unknown;
  let upload: AsyncIterable<Uint8Array> | undefined;
  const capped = { exceeded: false };
  if (route.bodyKind === 'upload') {
    checkDeclaredLength(request, options.maxUploadBytes);
    if (request.body && request.headers.get('content-length') !== '0')
      upload = cappedUpload(request.body, options.maxUploadBytes, capped);
  } else if (route.body) {
    const max = route.bodyKind === 'document' ? options.maxDocumentBytes : options.maxBodyBytes;
    const optional = route.body.safeParse(undefined).success;
    body = parsePart(route.body, await readJsonBody(request, max, optional), op, 'body');
  }
  try {
    const result = await route.handle({ engine, agentId, params, query, body, upload, signal: request.signal });
    return json(result, route.status);
  } catch (error) {
    // The engine wraps a failed spool; the cap is the real reason.
    if (capped.exceeded) throw tooLarge(options.maxUploadBytes);
    throw error;
  }
}

/** `/api/memories/{id}` → `/api/memories/:id` */
const honoPath = (path: string): string => path.replace(/\{([^}]+)\}/g, ':$1');

/**
 * Creates the HTTP API over one engine: JSON over REST under `/api`, scoped bearer tokens
 * (`engine.tokens`), per-token rate limits, body caps, and the OpenAPI document at `/openapi.json`.
 * It opens no socket: use `serveHttp`, or pass `fetch` to a server of your own.
 *
 * @example
 * ```ts
 * const api = createHttpServer({ engine });
 * const { token } = await engine.tokens.create({ agents: ['bot'], permissions: ['read', 'write'] });
 * const res = await api.fetch(new Request('http://x/api/memories', {
 *   method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ content: 'hi' }),
 * }));
 * ```
 */
export function createHttpServer(options: HttpServerOptions): HttpServer {
  const resolved = resolveHttpOptions(options);
  const limiter = resolved.rateLimit ? createRateLimiter({ ...resolved.rateLimit, clock: resolved.clock }) : undefined;
  const openapi = buildOpenApi(API_ROUTES, API_VERSION);
  const app = new Hono();
  app.get('/openapi.json', () => json(openapi, 200));
  app.get('/health', () => json({ status: 'ok' }, 200));
  for (const route of API_ROUTES) {
    app.on(route.method.toUpperCase(), honoPath(route.path), (c) =>
      dispatch(resolved, limiter, route, c.req.raw, c.req.param()),
    );
  }
  app.notFound(() => json(errorResponse(notFound()).body, 404));
  app.onError((error) => {
    const { status, body, headers } = errorResponse(error);
    if (status >= 500) {
      resolved.logger.error('http request failed', { error: error instanceof Error ? error.message : String(error) });
    }
    return json(body, status, headers);
  });
  return Object.freeze({
    fetch: async (request: Request) => app.fetch(request),
    routes: API_ROUTES,
    openapi,
  });
}
