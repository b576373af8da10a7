import {
  createNoteBody,
  listNotesQuery,
  noteHistoryResponse,
  notePageResponse,
  noteResponse,
  noteSearchResponse,
  noteTransitionBody,
  searchNotesBody,
  updateNoteBody,
} from '../note-schemas.js';
import { defineRoute, type Route } from '../route.js';
import { idParams } from '../schemas.js';

const tag = 'notes';

const transition = (action: 'resolve' | 'archive', summary: string): Route =>
  defineRoute({
    method: 'post',
    path: `/api/notes/{id}/${action}`,
    operationId: `${action}Note`,
    response: noteResponse,
    summary,
    tag,
    permission: 'write',
    params: idParams,
    // The body only adds an actor and a reason: it may be left out.
    body: noteTransitionBody.optional(),
    handle: ({ engine, agentId, params, body }) => engine.notes[action]({ ...body, agentId, id: params.id }),
  });

/** Working notes: create, read, list, search, update, resolve, archive and their history. */
export const noteRoutes: readonly Route[] = [
  defineRoute({
    method: 'post',
    path: '/api/notes',
    operationId: 'createNote',
    response: noteResponse,
    summary: 'Create an active working note',
    tag,
    permission: 'write',
    body: createNoteBody,
    status: 201,
    handle: ({ engine, agentId, body }) => engine.notes.create({ ...body, agentId }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/notes',
    operationId: 'listNotes',
    response: notePageResponse,
    summary: 'One page of notes, newest first; filter by status, entity (entityType + entityRefId) and tags',
    tag,
    permission: 'read',
    query: listNotesQuery,
    handle: ({ engine, agentId, query: { entityType, entityRefId, ...rest } }) =>
      engine.notes.list({
        ...rest,
        agentId,
        ...(entityType !== undefined && entityRefId !== undefined
          ? { entity: { type: entityType, refId: entityRefId } }
          : {}),
      }),
  }),
  // POST, so that `GET /api/notes/search` stays a read of the note whose id is `search`.
  defineRoute({
    method: 'post',
    path: '/api/notes/search',
    operationId: 'searchNotes',
    response: noteSearchResponse,
    summary: 'Search notes by text (BM25, fused with vectors when an embedder is set), entity and status',
    tag,
    permission: 'read',
    body: searchNotesBody,
    handle: async ({ engine, agentId, body }) => ({ hits: await engine.notes.search({ ...body, agentId }) }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/notes/{id}',
    operationId: 'getNote',
    response: noteResponse,
    summary: 'A note, whatever its status',
    tag,
    permission: 'read',
    params: idParams,
    handle: ({ engine, agentId, params }) => engine.notes.get({ agentId, id: params.id }),
  }),
  defineRoute({
    method: 'patch',
    path: '/api/notes/{id}',
    operationId: 'updateNote',
    response: noteResponse,
    summary: 'Change title, content, tags or linkedEntities of an active or resolved note',
    tag,
    permission: 'write',
    params: idParams,
    body: updateNoteBody,
    handle: ({ engine, agentId, params, body }) => engine.notes.update({ ...body, agentId, id: params.id }),
  }),
  transition('resolve', 'active → resolved (409 CONFLICT from any other status)'),
  transition('archive', 'active or resolved → archived (409 CONFLICT when already archived)'),
  defineRoute({
    method: 'get',
    path: '/api/notes/{id}/history',
    operationId: 'noteHistory',
    response: noteHistoryResponse,
    summary: "The note's audit trail, oldest first",
    tag,
    permission: 'read',
    params: idParams,
    handle: async ({ engine, agentId, params }) => ({
      history: await engine.notes.history({ agentId, id: params.id }),
    }),
  }),
];
