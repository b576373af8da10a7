import { found } from '../errors.js';
import { forgetResponse, historyResponse, memoryPageResponse, memoryResponse, rememberResponse } from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import {
  forgetBody,
  getMemoryQuery,
  idParams,
  listMemoriesQuery,
  modifyBody,
  recoverBody,
  rememberBody,
} from '../schemas.js';

const tag = 'memories';

/** Remember, read, list, modify, forget, recover and the history of memories. */
export const memoryRoutes: readonly Route[] = [
  defineRoute({
    method: 'post',
    path: '/api/memories',
    operationId: 'remember',
    response: rememberResponse,
    summary: 'Remember a memory (the same content in the same scope returns the existing id, deduped: true)',
    tag,
    permission: 'write',
    body: rememberBody,
    status: 201,
    handle: ({ engine, agentId, body }) => engine.remember({ ...body, agentId }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/memories',
    operationId: 'listMemories',
    response: memoryPageResponse,
    summary: "One page of the scope's memories, newest first; pass nextCursor back as cursor",
    tag,
    permission: 'read',
    query: listMemoriesQuery,
    handle: ({ engine, agentId, query: { includeDeleted, ...page } }) =>
      engine.list({ ...page, agentId, ...(includeDeleted === undefined ? {} : { includeForgotten: includeDeleted }) }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/memories/{id}',
    operationId: 'getMemory',
    response: memoryResponse,
    summary: 'A memory (forgotten ones only with includeDeleted=true)',
    tag,
    permission: 'read',
    params: idParams,
    query: getMemoryQuery,
    handle: async ({ engine, agentId, params, query }) =>
      found(await engine.getMemory({ ...query, agentId, id: params.id })),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/memories/{id}',
    operationId: 'modifyMemory',
    response: memoryResponse,
    summary: 'Change content, importance, tags or pinned, with a reason recorded in history',
    tag,
    permission: 'write',
    params: idParams,
    body: modifyBody,
    handle: ({ engine, agentId, params, body }) => engine.modify({ ...body, agentId, id: params.id }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/memories/{id}/forget',
    operationId: 'forgetMemory',
    response: forgetResponse,
    summary: 'Forget (soft-delete) a memory; pinned memories need force',
    tag,
    permission: 'write',
    params: idParams,
    body: forgetBody,
    handle: ({ engine, agentId, params, body }) => engine.forget({ ...body, agentId, id: params.id }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/memories/{id}/recover',
    operationId: 'recoverMemory',
    response: memoryResponse,
    summary: 'Restore a forgotten memory within the recovery window',
    tag,
    permission: 'write',
    params: idParams,
    body: recoverBody,
    handle: ({ engine, agentId, params, body }) => engine.recover({ ...body, agentId, id: params.id }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/memories/{id}/history',
    operationId: 'memoryHistory',
    response: historyResponse,
    summary: "The memory's audit trail, oldest first",
    tag,
    permission: 'read',
    params: idParams,
    handle: async ({ engine, agentId, params }) => ({ history: await engine.history({ agentId, id: params.id }) }),
  }),
];
