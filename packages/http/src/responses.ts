import { MEMORY_TYPES } from '@memory/store';
import { z } from 'zod';

// Response schemas: what `/openapi.json` promises each route returns. They document the engine's
// return types (objects stay open to added fields); a test parses real responses with them, so a
// change in the engine's views that breaks the promise fails there.

const nullableString = z.string().nullable();
const nullableTime = z.number().nullable();

export const memoryResponse = z.object({
  id: z.string(),
  agentId: z.string(),
  content: z.string(),
  type: z.enum(MEMORY_TYPES),
  category: nullableString,
  importance: z.number(),
  confidence: z.number(),
  tags: z.array(z.string()),
  project: nullableString,
  who: nullableString,
  why: nullableString,
  source: z.object({ type: z.string(), id: z.string() }).nullable(),
  linkedEntities: z.array(z.object({ type: z.string(), refId: z.string(), label: z.string().optional() })),
  pinned: z.boolean(),
  deleted: z.boolean(),
  deletedAt: nullableTime,
  expiresAt: nullableTime,
  accessCount: z.number(),
  lastAccessed: nullableTime,
  updateCount: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
});

export const rememberResponse = z.object({ id: z.string(), deduped: z.boolean() });
export const forgetResponse = z.object({ id: z.string(), forgotten: z.boolean() });
export const memoryPageResponse = z.object({ memories: z.array(memoryResponse), nextCursor: nullableString });
export const historyResponse = z.object({
  history: z.array(
    z.object({
      id: z.string(),
      memoryId: z.string(),
      event: z.string(),
      oldContent: nullableString,
      newContent: nullableString,
      changedBy: z.string(),
      actorType: z.string(),
      reason: nullableString,
      metadata: z.record(z.string(), z.unknown()),
      sessionId: nullableString,
      requestId: nullableString,
      at: z.number(),
    }),
  ),
});

const channels = z.record(z.string(), z.unknown());
const memoryResult = z.object({
  kind: z.literal('memory'),
  id: z.string(),
  content: z.string(),
  type: z.enum(MEMORY_TYPES),
  score: z.number(),
  tier: z.enum(['linked', 'related']),
  channels,
  tags: z.array(z.string()),
  project: nullableString,
  who: nullableString,
  importance: z.number(),
  pinned: z.boolean(),
  createdAt: z.number(),
  source: z.object({ type: z.string(), id: z.string() }).optional(),
  entities: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  /** For a document chunk: its document and its place in it. */
  document: z.record(z.string(), z.unknown()).optional(),
  explanation: z.record(z.string(), z.unknown()).optional(),
});
/** A working note, with `include: ['notes']`: scored and tiered with the memories. Times are epoch ms. */
const noteResult = z.object({
  kind: z.literal('note'),
  id: z.string(),
  title: z.string(),
  content: z.string(),
  status: z.enum(['active', 'resolved']),
  score: z.number(),
  tier: z.enum(['linked', 'related']),
  channels,
  tags: z.array(z.string()),
  linkedEntities: z.array(z.object({ type: z.string(), refId: z.string(), label: z.string().optional() })),
  createdAt: z.number(),
  updatedAt: z.number(),
  explanation: z.record(z.string(), z.unknown()).optional(),
});

export const recallResponse = z.object({
  results: z.array(z.discriminatedUnion('kind', [memoryResult, noteResult])),
  query: z.record(z.string(), z.unknown()),
  vectorCompleteness: z.string(),
  /** With an embedder: live memories with a vector of the current embedder, of all (below: `partial`). */
  vectorCoverage: z.object({ embedded: z.number(), total: z.number() }).optional(),
  /** The search window applied (`since`, `days`: null when none), its end (`now`) and the matches it left out. */
  window: z.object({ since: nullableTime, days: z.number().nullable(), now: z.number(), excluded: z.number() }),
  drillDown: z.array(z.record(z.string(), z.unknown())),
  expansions: z.array(z.record(z.string(), z.unknown())).optional(),
  warnings: z.array(z.string()),
  timings: z.record(z.string(), z.number()),
  /** With `format: true`: the tiered, budgeted text of `formatRecall`. */
  text: z.string().optional(),
});

const turn = z.object({ seq: z.number(), role: z.string(), content: z.string(), at: nullableTime });
const transcriptSummary = z.object({
  agentId: z.string(),
  sessionKey: z.string(),
  harness: nullableString,
  project: nullableString,
  turnCount: z.number(),
  contentHash: nullableString,
  createdAt: z.number(),
  updatedAt: z.number(),
  completedAt: nullableTime,
});
export const transcriptResponse = transcriptSummary.extend({ turns: z.array(turn), content: z.string() });
export const transcriptListResponse = z.object({ sessions: z.array(transcriptSummary) });
export const appendResponse = z.object({
  sessionKey: z.string(),
  appended: z.number(),
  duplicates: z.number(),
  dropped: z.number(),
});
export const completeResponse = z.object({ completed: z.boolean() });
export const transcriptSearchResponse = z.object({
  hits: z.array(turn.extend({ sessionKey: z.string(), score: z.number() })),
});

const documentView = z.object({
  id: z.string(),
  agentId: z.string(),
  project: nullableString,
  sourceType: z.enum(['url', 'text', 'file']),
  sourceUrl: nullableString,
  title: nullableString,
  contentType: nullableString,
  status: z.string(),
  error: nullableString,
  chunkCount: z.number(),
  memoryCount: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
  completedAt: nullableTime,
});
export const documentResponse = documentView;
export const documentListResponse = z.object({ documents: z.array(documentView) });
export const documentQueuedResponse = z.object({
  id: z.string(),
  jobId: z.string(),
  /** From `POST /api/documents`: `unchanged` when the scope holds these bytes already (nothing queued). */
  outcome: z.enum(['added', 'unchanged', 'updated']).optional(),
});
export const documentDeleteResponse = z.object({ deleted: z.boolean(), forgottenChunks: z.number() });

export const importStartResponse = z.object({ jobId: z.string() });
export const importStatusResponse = z.object({
  jobId: z.string(),
  agentId: z.string(),
  status: z.string(),
  file: z.string(),
  counters: z.object({
    total: z.number(),
    imported: z.number(),
    duplicate: z.number(),
    rejected: z.number(),
    pending: z.number(),
  }),
  inventoried: z.boolean(),
  error: nullableString,
  createdAt: z.number(),
  completedAt: nullableTime,
});
export const importRecordsResponse = z.object({
  records: z.array(
    z.object({
      line: z.number(),
      outcome: z.enum(['pending', 'imported', 'duplicate', 'rejected']),
      reason: nullableString,
      recordId: nullableString,
      sessionKey: nullableString,
      messageCount: z.number().nullable(),
      byteOffset: z.number(),
    }),
  ),
});
export const removeSourceResponse = z.object({ removedSessions: z.number() });

/** A job as HTTP shows it: without its lease token, which only the worker holding the lease may use. */
export const jobResponse = z.object({
  id: z.string(),
  jobType: z.string(),
  status: z.string(),
  payload: z.unknown(),
  result: z.unknown(),
  attempts: z.number(),
  maxAttempts: z.number(),
  runAt: z.number(),
  agentId: nullableString,
  documentId: nullableString,
  error: nullableString,
  createdAt: z.number(),
});
export const diagnosticsResponse = z.object({
  started: z.boolean(),
  queue: z.array(z.record(z.string(), z.unknown())),
  workers: z.array(z.record(z.string(), z.unknown())),
  providers: z.record(z.string(), z.unknown()),
});
export const telemetryResponse = z.object({
  recalls: z.array(
    z.object({
      agentId: z.string(),
      query: z.string(),
      resultCount: z.number(),
      topScore: z.number().nullable(),
      channels: z.record(z.string(), z.number()),
      vectorCompleteness: z.string(),
      totalMs: z.number(),
      createdAt: z.number(),
    }),
  ),
});
