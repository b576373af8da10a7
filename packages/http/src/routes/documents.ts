import { found } from '../errors.js';
import {
  documentDeleteResponse,
  documentListResponse,
  documentQueuedResponse,
  documentResponse,
} from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import { addDocumentBody, idParams, listDocumentsQuery } from '../schemas.js';

const tag = 'documents';

/** Documents: URLs or raw content, chunked into memories by a background job. */
export const documentRoutes: readonly Route[] = [
  defineRoute({
    method: 'post',
    path: '/api/documents',
    operationId: 'addDocument',
    response: documentQueuedResponse,
    summary: 'Register a document (a URL or content) and queue its ingest',
    tag,
    permission: 'write',
    body: addDocumentBody,
    bodyKind: 'document',
    status: 202,
    handle: ({ engine, agentId, body, signal }) => engine.documents.add({ ...body, agentId, signal }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/documents',
    operationId: 'listDocuments',
    response: documentListResponse,
    summary: 'Documents of the scope, with their status',
    tag,
    permission: 'read',
    query: listDocumentsQuery,
    handle: async ({ engine, agentId, query }) => ({ documents: await engine.documents.list({ ...query, agentId }) }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/documents/{id}',
    operationId: 'getDocument',
    response: documentResponse,
    summary: 'A document with its status and error',
    tag,
    permission: 'read',
    params: idParams,
    handle: async ({ engine, agentId, params }) => found(await engine.documents.get({ agentId, id: params.id })),
  }),
  defineRoute({
    method: 'delete',
    path: '/api/documents/{id}',
    operationId: 'deleteDocument',
    response: documentDeleteResponse,
    summary: 'Delete a document: stops its ingest and forgets chunk memories no other document shares',
    tag,
    permission: 'write',
    params: idParams,
    handle: ({ engine, agentId, params }) => engine.documents.delete({ agentId, id: params.id }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/documents/{id}/retry',
    operationId: 'retryDocument',
    response: documentQueuedResponse,
    summary: "Queue a failed document's ingest again",
    tag,
    permission: 'write',
    params: idParams,
    status: 202,
    handle: ({ engine, agentId, params }) => engine.documents.retry({ agentId, id: params.id }),
  }),
];
