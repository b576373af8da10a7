import { formatRecall } from '@memory/engine';
import { recallResponse } from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import { recallBody } from '../schemas.js';

/** Hybrid recall in the token's agent scope, through the engine's one recall path. */
export const recallRoutes: readonly Route[] = [
  defineRoute({
    method: 'post',
    path: '/api/recall',
    operationId: 'recall',
    response: recallResponse,
    summary:
      'Hybrid recall (lexical, semantic, hints, graph, links), fused and tiered; format=true adds the budgeted text',
    tag: 'recall',
    permission: 'read',
    body: recallBody,
    handle: async ({ engine, agentId, body, signal }) => {
      const { format, ...input } = body;
      const response = await engine.recall({ ...input, agentId, signal });
      return format ? { ...response, text: formatRecall(response) } : response;
    },
  }),
];
