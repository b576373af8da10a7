import { found, HttpError } from '../errors.js';
import {
  importRecordsResponse,
  importStartResponse,
  importStatusResponse,
  removeSourceResponse,
} from '../responses.js';
import { defineRoute, type Route } from '../route.js';
import { importParams, importRecordsQuery } from '../schemas.js';

const tag = 'imports';

const importAction = (action: 'pause' | 'resume' | 'cancel', summary: string): Route =>
  defineRoute({
    method: 'post',
    path: `/api/imports/{jobId}/${action}`,
    operationId: `${action}Import`,
    response: importStatusResponse,
    summary,
    tag,
    permission: 'write',
    params: importParams,
    handle: ({ engine, agentId, params }) => engine.imports[action]({ agentId, jobId: params.jobId }),
  });

/** Durable transcript imports (signet-export v1 JSONL): upload, status, per-line records, control. */
export const importRoutes: readonly Route[] = [
  defineRoute({
    method: 'post',
    path: '/api/imports',
    operationId: 'startImport',
    response: importStartResponse,
    summary:
      'Upload a signet-export v1 JSONL export as the request body; it is streamed to the spool directory and imported in the background',
    tag,
    permission: 'write',
    bodyKind: 'upload',
    uploadType: 'application/x-ndjson',
    status: 202,
    handle: ({ engine, agentId, upload, signal }) => {
      if (!upload) throw new HttpError('INVALID_INPUT', 'the request body (the JSONL export) is empty');
      return engine.imports.start({ agentId, stream: upload, signal });
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/imports/{jobId}',
    operationId: 'importStatus',
    response: importStatusResponse,
    summary: 'Status and counters (total = imported + duplicate + rejected + pending)',
    tag,
    permission: 'read',
    params: importParams,
    handle: async ({ engine, agentId, params }) => found(await engine.imports.status({ agentId, jobId: params.jobId })),
  }),
  defineRoute({
    method: 'get',
    path: '/api/imports/{jobId}/records',
    operationId: 'importRecords',
    response: importRecordsResponse,
    summary: 'Per-line outcomes in line order; page with afterLine',
    tag,
    permission: 'read',
    params: importParams,
    query: importRecordsQuery,
    handle: async ({ engine, agentId, params, query }) => ({
      records: await engine.imports.records({ ...query, agentId, jobId: params.jobId }),
    }),
  }),
  importAction('pause', 'Pause at the next batch boundary'),
  importAction('resume', 'Continue a paused or failed import from its checkpoint'),
  importAction('cancel', 'Stop for good at the next batch boundary (committed records stay)'),
  defineRoute({
    method: 'delete',
    path: '/api/imports/{jobId}/source',
    operationId: 'removeImportSource',
    response: removeSourceResponse,
    summary: 'Purge the sessions the import created (tombstones are kept)',
    tag,
    permission: 'write',
    params: importParams,
    handle: ({ engine, agentId, params }) => engine.imports.removeSource({ agentId, jobId: params.jobId }),
  }),
];
