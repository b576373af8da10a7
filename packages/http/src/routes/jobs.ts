import { found } from '../errors.js';
import { diagnosticsResponse, jobResponse, telemetryResponse } from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import { idParams, telemetryQuery } from '../schemas.js';

/** Job diagnostics (engine-wide, admin), a scoped job by id, and recall telemetry (analytics). */
export const jobRoutes: readonly Route[] = [
  defineRoute({
    method: 'get',
    path: '/api/jobs/diagnostics',
    operationId: 'diagnostics',
    response: diagnosticsResponse,
    summary: 'Queue health per job type, worker states and provider availability (engine-wide: admin)',
    tag: 'jobs',
    permission: 'admin',
    scoped: false,
    handle: ({ engine }) => engine.diagnostics(),
  }),
  defineRoute({
    method: 'get',
    path: '/api/jobs/{id}',
    operationId: 'getJob',
    response: jobResponse,
    summary: "A job of the agent's scope (the engine's own jobs come back without payload and result)",
    tag: 'jobs',
    permission: 'read',
    params: idParams,
    handle: async ({ engine, agentId, params }) => {
      const { leaseToken: _, ...job } = found(await engine.jobs.get({ agentId, id: params.id }));
      return job;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/telemetry/recall',
    operationId: 'recallTelemetry',
    response: telemetryResponse,
    summary:
      "The agent's recorded recalls, newest first (needs config.telemetry.recallQa; holds query text: analytics)",
    tag: 'telemetry',
    permission: 'analytics',
    query: telemetryQuery,
    handle: async ({ engine, agentId, query }) => ({ recalls: await engine.telemetry.list({ ...query, agentId }) }),
  }),
];
