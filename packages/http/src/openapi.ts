import { z } from 'zod';
import { errorBodySchema } from './errors.js';
import type { Route } from './route.js';
import { agentQuery } from './schemas.js';

/** A JSON Schema object as `z.toJSONSchema` returns it. */
type JsonSchema = Record<string, unknown>;

/** The OpenAPI 3.1 document of the API, built from the routes' own zod schemas. */
export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly info: { readonly title: string; readonly version: string; readonly description: string };
  readonly paths: Record<string, Record<string, unknown>>;
  readonly components: Record<string, unknown>;
  readonly security: ReadonlyArray<Record<string, readonly string[]>>;
}

/** The request side of a schema (query strings before coercion), without the `$schema` header. */
function jsonSchema(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  return rest;
}

function parameters(route: Route): unknown[] {
  const list: unknown[] = [];
  const add = (shape: Record<string, z.ZodType>, where: 'path' | 'query'): void => {
    for (const [name, field] of Object.entries(shape)) {
      const schema = jsonSchema(field);
      const optional = field.safeParse(undefined).success;
      list.push({ name, in: where, required: where === 'path' || !optional, schema });
    }
  };
  if (route.params) add(route.params.shape as Record<string, z.ZodType>, 'path');
  if (route.scoped) add({ agentId: agentQuery.optional() }, 'query');
  if (route.query) add(route.query.shape as Record<string, z.ZodType>, 'query');
  return list;
}

const errorRef = { $ref: '#/components/schemas/Error' };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: errorRef } } });

function operation(route: Route): Record<string, unknown> {
  const body =
    route.bodyKind === 'upload'
      ? {
          required: true,
          content: {
            [route.uploadType ?? 'application/octet-stream']: { schema: { type: 'string', format: 'binary' } },
          },
        }
      : route.body
        ? {
            required: !route.body.safeParse(undefined).success,
            content: { 'application/json': { schema: jsonSchema(route.body) } },
          }
        : undefined;
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    'x-permission': route.permission,
    parameters: parameters(route),
    ...(body ? { requestBody: body } : {}),
    responses: {
      [String(route.status)]: {
        description: 'Success',
        content: { 'application/json': { schema: route.response ? jsonSchema(route.response) : { type: 'object' } } },
      },
      '400': errorResponse('Invalid input (INVALID_INPUT)'),
      '401': errorResponse('No valid bearer token (UNAUTHORIZED)'),
      '403': errorResponse('The token lacks the permission (FORBIDDEN)'),
      '404': errorResponse("Not found, or outside the token's scope: the two are indistinguishable (NOT_FOUND)"),
      ...(route.body || route.bodyKind === 'upload'
        ? { '413': errorResponse('Body too large (PAYLOAD_TOO_LARGE)') }
        : {}),
      '429': errorResponse('Rate limited; see Retry-After (RATE_LIMITED)'),
    },
  };
}

/** Builds the document for these routes. */
export function buildOpenApi(routes: readonly Route[], version: string): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const entry = paths[route.path] ?? {};
    entry[route.method] = operation(route);
    paths[route.path] = entry;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: '@memory/http',
      version,
      description:
        'The memory engine over HTTP. Every /api route takes a bearer token bound to agents and permissions; errors share one JSON body.',
    },
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: { Error: jsonSchema(errorBodySchema) },
    },
    security: [{ bearer: [] }],
  };
}
