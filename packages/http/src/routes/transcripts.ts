import { found } from '../errors.js';
import {
  appendResponse,
  completeResponse,
  transcriptListResponse,
  transcriptResponse,
  transcriptSearchResponse,
} from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import { appendBody, listTranscriptsQuery, searchTranscriptsBody, sessionParams } from '../schemas.js';

const tag = 'transcripts';

/** Session transcripts: append turns, complete, read, list and search. */
export const transcriptRoutes: readonly Route[] = [
  // POST, so that `GET /api/transcripts/search` still reads a session whose key is `search`.
  defineRoute({
    method: 'post',
    path: '/api/transcripts/search',
    operationId: 'searchTranscripts',
    response: transcriptSearchResponse,
    summary: 'BM25 search over the turns of completed sessions (all sessions with completedOnly: false)',
    tag,
    permission: 'read',
    body: searchTranscriptsBody,
    handle: async ({ engine, agentId, body }) => ({ hits: await engine.transcripts.search({ ...body, agentId }) }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/transcripts',
    operationId: 'listTranscripts',
    response: transcriptListResponse,
    summary: 'Sessions, most recently updated first; page with afterUpdatedAt and afterSessionKey of the last one',
    tag,
    permission: 'read',
    query: listTranscriptsQuery,
    handle: async ({ engine, agentId, query }) => {
      const { afterUpdatedAt, afterSessionKey, ...rest } = query;
      const after =
        afterUpdatedAt !== undefined && afterSessionKey !== undefined
          ? { after: { updatedAt: afterUpdatedAt, sessionKey: afterSessionKey } }
          : {};
      return { sessions: await engine.transcripts.list({ ...rest, ...after, agentId }) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/transcripts/{sessionKey}/turns',
    operationId: 'appendTurns',
    response: appendResponse,
    summary: 'Append turns to a session (idempotent per turn; tool, system and reasoning turns are dropped)',
    tag,
    permission: 'write',
    params: sessionParams,
    body: appendBody,
    handle: ({ engine, agentId, params, body }) =>
      engine.transcripts.append({ ...body, agentId, sessionKey: params.sessionKey }),
  }),
  defineRoute({
    method: 'post',
    path: '/api/transcripts/{sessionKey}/complete',
    operationId: 'completeSession',
    response: completeResponse,
    summary: 'Complete a session (also done after the idle timeout)',
    tag,
    permission: 'write',
    params: sessionParams,
    handle: ({ engine, agentId, params }) => engine.transcripts.complete({ agentId, sessionKey: params.sessionKey }),
  }),
  defineRoute({
    method: 'get',
    path: '/api/transcripts/{sessionKey}',
    operationId: 'getTranscript',
    response: transcriptResponse,
    summary: 'A session with its turns',
    tag,
    permission: 'read',
    params: sessionParams,
    handle: async ({ engine, agentId, params }) =>
      found(await engine.transcripts.get({ agentId, sessionKey: params.sessionKey })),
  }),
];
